import { Type } from '@sinclair/typebox';
import { defineRoute } from '../routing/route';
import { Reply } from '../http/send';
import { DOCS_PAGE_DIR, staticFolder } from '../http/static-files';

const icons = staticFolder(DOCS_PAGE_DIR);

export const nameRoute = defineRoute({
    method: 'GET',
    path: '/name',
    summary: 'The instance namespace, e.g. rest-api.0 (no authentication)',
    tag: 'other',
    permission: null,
    responses: { 200: { description: 'The namespace', content: { 'text/plain': Type.String() } } },
    public: true,
    async handler(_req, { meta }) {
        return Reply.text(meta.namespace, 'text/plain; charset=utf-8');
    },
});

export const faviconRoute = defineRoute({
    method: 'GET',
    path: '/favicon.ico',
    summary: 'Icon',
    tag: 'other',
    permission: null,
    responses: { 200: { description: 'The icon', content: { 'image/x-icon': Type.String({ format: 'binary' }) } } },
    public: true,
    hidden: true,
    handler: () => icons('favicon.ico'),
});
