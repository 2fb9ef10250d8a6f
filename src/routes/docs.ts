import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config';
import type { RequestContext } from '../request-context';
import { defineRoute, type Route, type RouteRequest } from '../routing/route';
import { Reply } from '../http/send';
import { DOCS_PAGE_DIR, SWAGGER_UI_DIR, staticFolder } from '../http/static-files';

const docsPage = staticFolder(DOCS_PAGE_DIR);
const swaggerUi = staticFolder(SWAGGER_UI_DIR);

const docsRoute = (path: string, handler: Route['handler'], isPublic = true): Route =>
    defineRoute({ method: 'GET', path, summary: 'Docs page', tag: 'other', permission: null, public: isPublic, challenge: !isPublic, hidden: true, responses: HIDDEN, handler });

/** Not in the document: the page, its assets and the document itself. */
const HIDDEN = { '200': { description: 'The docs page, an asset, or the OpenAPI document' } };

/** The OpenAPI document; through a reverse proxy its one server is the public base, so "Try it out" goes there. */
function openapiReply({ prefix, forwarded }: RouteRequest, { meta }: RequestContext): Reply {
    if (!forwarded) {
        return Reply.json(meta.openapi);
    }
    const url = `${forwarded.origin ?? ''}${prefix || '/'}`;
    return Reply.json({ ...meta.openapi, servers: [{ url, description: 'As reached through the reverse proxy (trustProxy, publicUrl)' }] });
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
        // asset links are absolute, so the page works with and without the trailing slash and under a prefix
        docsRoute('/api-doc/', async ({ prefix }) => {
            const template = await readFile(join(DOCS_PAGE_DIR, 'index.html'), 'utf8');
            return Reply.bytes(template.replaceAll('{{base}}', `${prefix}/api-doc/`), 'text/html; charset=utf-8');
        }),
        docsRoute('/api-doc/:file', async ({ params }) => (params.file.startsWith('docs-') ? docsPage(params.file) : swaggerUi(params.file))),
        docsRoute('/api-docs/openapi.json', async (req, ctx) => openapiReply(req, ctx), documentPublic),
        // the path of 4.0.2, kept for existing bookmarks and tools
        docsRoute('/api-docs/swagger.json', async (req, ctx) => openapiReply(req, ctx), documentPublic),
    ];
}
