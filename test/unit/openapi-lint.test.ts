/*
 * The document passes the linters API users run, with auth on and off: Redocly's recommended rules
 * and Spectral's spectral:oas, both from their packages (no network). A document with a known flaw
 * shows the linters really run.
 */
import t from 'tap';
import { normalizeConfig } from '../../src/instance/config';
import { loadCommands } from '../../src/command-runtime/load-commands';
import { buildOpenApi } from '../../src/routing/openapi';
import { restRoutes } from '../../src/routes';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const redocly = require('@redocly/openapi-core') as typeof import('@redocly/openapi-core');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Spectral, Document } = require('@stoplight/spectral-core') as typeof import('@stoplight/spectral-core');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Parsers = require('@stoplight/spectral-parsers') as typeof import('@stoplight/spectral-parsers');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { oas } = require('@stoplight/spectral-rulesets') as typeof import('@stoplight/spectral-rulesets');

type Json = Record<string, any>;

const documentFor = (auth: boolean): Json =>
    buildOpenApi({ routes: restRoutes(normalizeConfig({ auth })), commands: loadCommands().values(), version: '5.0.0', basePath: '', auth });

async function redoclyProblems(doc: Json): Promise<string[]> {
    const config = await redocly.createConfig({ extends: ['recommended'] });
    const problems = await redocly.lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
    return problems.map(p => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
}

async function spectralProblems(doc: Json): Promise<string[]> {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas] } as never);
    const results = await spectral.run(new Document(JSON.stringify(doc, null, 2), Parsers.Json, '/openapi.json'));
    return results.map(r => `${r.code}: ${r.message} at ${r.path.join('/')}`);
}

for (const auth of [true, false]) {
    t.test(`Redocly recommended and spectral:oas report nothing (auth ${auth ? 'on' : 'off'})`, async t => {
        const doc = documentFor(auth);
        t.same(await redoclyProblems(doc), [], 'Redocly: 0 errors, 0 warnings');
        t.same(await spectralProblems(doc), [], 'Spectral: 0 problems');
    });
}

t.test('the linters find a flaw when there is one', async t => {
    const doc = documentFor(false);
    delete doc.info.contact;
    const first = Object.values(doc.paths as Json)[0] as Json;
    delete (Object.values(first)[0] as Json).description;
    t.match((await spectralProblems(doc)).join('\n'), /info-contact[\s\S]*operation-description|operation-description[\s\S]*info-contact/);
    (Object.values(first)[0] as Json).responses = { default: { description: 'anything' } };
    t.match((await redoclyProblems(doc)).join('\n'), /operation-4xx-response/);
});
