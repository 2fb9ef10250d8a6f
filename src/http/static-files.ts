import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { HttpError } from './http-error';
import { Reply } from './send';

export const PACKAGE_ROOT = join(__dirname, '..', '..', '..');
export const DOCS_PAGE_DIR = join(PACKAGE_ROOT, 'docs-page');
export const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
/** uPlot's built files, for the history chart next to the docs page. */
export const UPLOT_DIR = join(dirname(require.resolve('uplot/package.json')), 'dist');

const versionOf = (dir: string): string =>
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The version in the path of the docs page's assets: ours (docs-page/), swagger-ui-dist's and uPlot's. An
 * asset under it never changes, so browsers keep it for a year and ask again only after an update.
 */
export const ASSET_VERSION =
    `${versionOf(PACKAGE_ROOT)}-${versionOf(SWAGGER_UI_DIR)}-${versionOf(join(UPLOT_DIR, '..'))}`.replace(
        /[^\w.-]/g,
        '_',
    );

const TYPES: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.png': 'image/png',
    '.ico': 'image/x-icon',
    '.map': 'application/json; charset=utf-8',
    '.json': 'application/json; charset=utf-8',
};

/** Serves files of one folder by exact name only, so no request can leave that folder. */
export function staticFolder(dir: string, cacheControl = 'public, max-age=3600'): (name: string) => Promise<Reply> {
    const names = new Set(readdirSync(dir).filter(n => TYPES[extname(n)] !== undefined));
    return async name => {
        if (!names.has(name)) {
            throw new HttpError('NOT_FOUND', `File ${name} not found`);
        }
        return Reply.bytes(await readFile(join(dir, name)), TYPES[extname(name)], { 'Cache-Control': cacheControl });
    };
}
