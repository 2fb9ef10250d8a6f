/*
 * Stored files, fetched pages and instance replies come from whoever could write them. Served from
 * our origin as a page, their script would run with the API's origin (and, with auth off, its
 * rights). `sandbox` gives such a document an origin of its own and no script.
 */

const ACTIVE = new Set([
    'text/html',
    'application/xhtml+xml',
    'image/svg+xml',
    'text/xml',
    'application/xml',
    'text/xsl',
    'application/xslt+xml',
    'text/javascript',
    'application/javascript',
    'application/x-javascript',
    'text/ecmascript',
    'application/ecmascript',
    'multipart/x-mixed-replace',
]);

const SANDBOX = { 'Content-Security-Policy': 'sandbox' } as const;
const NONE = {} as const;

/** Whether a browser could run script in a body of this type; an empty or unparsable type counts, as it may be sniffed. */
export function isActiveContent(contentType: string): boolean {
    const essence = contentType.split(';')[0].trim().toLowerCase();
    return !essence || !essence.includes('/') || ACTIVE.has(essence) || essence.endsWith('+xml');
}

/** The headers that keep a body of this type inert when a browser opens it. */
export function inertHeaders(contentType: string): Readonly<Record<string, string>> {
    return isActiveContent(contentType) ? SANDBOX : NONE;
}
