import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { Reply } from '../http/send';
import { DOCS_PAGE_DIR } from '../http/static-files';

const MIB = 1024 * 1024;
/** Larger gzip files are handed over as they are; smaller ones are shown. */
const GZIP_SHOWN_UP_TO = MIB;
/** Larger log texts are sent as plain text, a browser would choke on the colouring. */
const DECORATED_UP_TO = 2 * MIB;
const unzip = promisify(gunzip);

const template = readFileSync(join(DOCS_PAGE_DIR, 'log-page.html'), 'utf8');

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
    return text.replace(/[&<>"']/g, c => HTML_ENTITIES[c]);
}

function logPage(title: string, text: string): string {
    // a function replacement, so `$&` and the like in the log text stay literal
    return template.replace(/\{\{(title|log)\}\}/g, (_, key: string) => escapeHtml(key === 'title' ? title : text));
}

function gzipDownload(name: string, data: Buffer): Reply {
    const file = encodeURIComponent(name.split('/').pop() ?? name);
    return Reply.bytes(data, 'application/gzip', { 'Content-Disposition': `attachment; filename="${file}"` });
}

/** A log file as 4.0.2 showed it: an HTML page with the escaped text, plain text when large, gzip when very large. */
export async function logFileReply(name: string, data: Buffer): Promise<Reply> {
    let text = data;
    if (name.toLowerCase().endsWith('.gz')) {
        if (data.length > GZIP_SHOWN_UP_TO) {
            return gzipDownload(name, data);
        }
        try {
            text = await unzip(data, { maxOutputLength: 16 * DECORATED_UP_TO });
        } catch {
            // damaged, or it unpacks to more than we show: the client gets the file itself
            return gzipDownload(name, data);
        }
    }
    if (text.length > DECORATED_UP_TO) {
        return Reply.bytes(text, 'text/plain; charset=utf-8');
    }
    return Reply.bytes(logPage(name, text.toString('utf8')), 'text/html; charset=utf-8');
}
