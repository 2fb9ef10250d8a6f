import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../instance/config';
import type { RequestContext } from '../context/request-context';
import { defineRoute, type Route, type RouteRequest } from '../routing/route';
import { Reply } from '../http/send';
import { ASSET_VERSION, DOCS_PAGE_DIR, SWAGGER_UI_DIR, staticFolder, UPLOT_DIR } from '../http/static-files';
import { HttpError } from '../http/http-error';
import { IMMUTABLE } from '../http/conditional';

const docsPage = staticFolder(DOCS_PAGE_DIR);
const swaggerUi = staticFolder(SWAGGER_UI_DIR);
const versionedDocsPage = staticFolder(DOCS_PAGE_DIR, IMMUTABLE);
const versionedSwaggerUi = staticFolder(SWAGGER_UI_DIR, IMMUTABLE);
const uPlot = staticFolder(UPLOT_DIR);
const versionedUPlot = staticFolder(UPLOT_DIR, IMMUTABLE);
const ASSETS = `static/${ASSET_VERSION}/`;

/** An asset by its name: ours start with `docs-`, uPlot's with `uPlot.`, the rest are Swagger UI's. */
function asset(file: string, versioned: boolean): Promise<Reply> {
    if (file.startsWith('docs-')) {
        return versioned ? versionedDocsPage(file) : docsPage(file);
    }
    if (file.startsWith('uPlot.')) {
        return versioned ? versionedUPlot(file) : uPlot(file);
    }
    return versioned ? versionedSwaggerUi(file) : swaggerUi(file);
}

/** The page template `name` of docs-page/ with its links to the assets filled in. */
async function page(name: string, base: string): Promise<Reply> {
    const template = await readFile(join(DOCS_PAGE_DIR, name), 'utf8');
    return Reply.bytes(
        template.replaceAll('{{base}}', base).replaceAll('{{assets}}', base + ASSETS),
        'text/html; charset=utf-8',
    );
}

const docsRoute = (path: string, handler: Route['handler'], isPublic = true): Route =>
    defineRoute({
        method: 'GET',
        path,
        summary: 'Docs page',
        tag: 'other',
        permission: null,
        public: isPublic,
        challenge: !isPublic,
        hidden: true,
        responses: HIDDEN,
        handler,
    });

/** Not in the document: the page, its assets and the document itself. */
const HIDDEN = { 200: { description: 'The docs page, an asset, or the OpenAPI document' } };

/** The OpenAPI document; through a reverse proxy its one server is the public base, so "Try it out" goes there. */
function openapiReply({ prefix, forwarded }: RouteRequest, { meta }: RequestContext): Reply {
    if (!forwarded) {
        return Reply.json(meta.openapi).validated('body');
    }
    const url = `${forwarded.origin ?? ''}${prefix || '/'}`;
    return Reply.json({
        ...meta.openapi,
        servers: [{ url, description: 'As reached through the reverse proxy (trustProxy, publicUrl)' }],
    }).validated('body');
}

/**
 * The interactive docs page: Swagger UI from swagger-ui-dist, served locally, and the OpenAPI
 * document. The page and its assets hold no data; the document needs credentials while `auth` is
 * on, unless `publicDocs` says otherwise.
 */
export function docsRoutes(config: Config): Route[] {
    const documentPublic = !config.auth || config.publicDocs;
    return [
        docsRoute('/', async ({ prefix }) => Reply.redirect(`${prefix}/api-doc/`)),
        // asset links are relative, so the page works under any prefix (web's /rest-api, a proxy's path);
        // without the trailing slash they go through `api-doc/`. The page is asked again each time
        // (no-cache), its versioned assets are kept for a year.
        docsRoute('/api-doc/', async ({ url }) =>
            page('index.html', url.split('?')[0].endsWith('/') ? '' : 'api-doc/'),
        ),
        // the history chart holds no data; it asks for credentials itself when /v1/history wants them
        docsRoute('/api-doc/chart', async () => page('history-chart.html', '')),
        docsRoute('/api-doc/:file', async ({ params }) => asset(params.file, false)),
        docsRoute('/api-doc/static/:version/:file', async ({ params }) => {
            if (params.version !== ASSET_VERSION) {
                // another version's asset must not be kept for a year under that version's path
                throw new HttpError('NOT_FOUND', `File ${params.file} not found`);
            }
            return asset(params.file, true);
        }),
        docsRoute('/api-docs/openapi.json', async (req, ctx) => openapiReply(req, ctx), documentPublic),
        // the path of 4.0.2, kept for existing bookmarks and tools
        docsRoute('/api-docs/swagger.json', async (req, ctx) => openapiReply(req, ctx), documentPublic),
    ];
}
