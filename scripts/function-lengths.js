'use strict';
// Lists the functions with more than 80 lines of their own: a function's lines minus the lines of the
// functions nested in it, which are counted apart. Exits 1 when there is one, so the rule stays held.
// Usage: node scripts/function-lengths.js [folder or file ...] (default: src commands)
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join, relative, resolve } = require('node:path');
const ts = require('typescript');

const root = join(__dirname, '..');
const LIMIT = 80;

function sources(path) {
    if (!statSync(path).isDirectory()) {
        return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
    }
    return readdirSync(path).flatMap(name => sources(join(path, name)));
}

function isFunction(node) {
    return (
        ts.isFunctionDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isArrowFunction(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node)
    );
}

/** The name a reader finds the function by: its own, or the variable, property or class member it is assigned to. */
function nameOf(node) {
    if (ts.isConstructorDeclaration(node)) {
        return `${node.parent.name?.text ?? '(class)'}.constructor`;
    }
    if (node.name) {
        const own = node.name.getText();
        return ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.${own}` : own;
    }
    const parent = node.parent;
    if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
        return parent.name.getText();
    }
    return '(anonymous)';
}

/** Every function of one file with its own lines. */
function measure(file) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const lineOf = pos => source.getLineAndCharacterOfPosition(pos).line;
    const found = [];
    /** Visits `node`; returns the lines that the functions directly below it span. */
    const visit = node => {
        if (isFunction(node)) {
            const start = lineOf(node.getStart(source));
            const span = lineOf(node.getEnd()) - start + 1;
            let nested = 0;
            ts.forEachChild(node, child => {
                nested += visit(child);
            });
            found.push({ file, name: nameOf(node), line: start + 1, own: span - nested });
            return span;
        }
        let spans = 0;
        ts.forEachChild(node, child => {
            spans += visit(child);
        });
        return spans;
    };
    visit(source);
    return found;
}

/** The functions over the limit in the given folders or files, longest first. */
function longFunctions(paths = ['src', 'commands'], limit = LIMIT) {
    return paths
        .flatMap(path => sources(resolve(root, path)))
        .flatMap(measure)
        .filter(f => f.own > limit)
        .map(f => ({ ...f, file: relative(root, f.file) }))
        .sort((a, b) => b.own - a.own);
}

module.exports = { longFunctions, measure, LIMIT };

if (require.main === module) {
    const args = process.argv.slice(2);
    const long = longFunctions(args.length ? args : undefined);
    for (const f of long) {
        console.log(`${f.file}:${f.line} ${f.name}: ${f.own} lines of its own`);
    }
    if (long.length) {
        console.log(`${long.length} function(s) over ${LIMIT} lines of their own`);
        process.exit(1);
    }
    console.log(`no function over ${LIMIT} lines of its own`);
}
