/*
 * The callers of the history access tests and their requests: the administrator and a limited user
 * "bee", with Basic auth, against one fixture; the day the tests record values on.
 */
import type { HttpAnswer, IobFixture } from './iobroker';

export interface Caller {
    user: string;
    pass: string;
}

export const ADMIN: Caller = { user: 'admin', pass: 'iobroker' };
export const BEE: Caller = { user: 'bee', pass: 'b' };
export const DAY = Date.UTC(2026, 10, 20);
/** A query for the whole of DAY. */
export const dayQuery = `start=${DAY}&end=${DAY + 86_400_000 - 1}`;

const auth = ({ user, pass }: Caller): Record<string, string> => ({
    Authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
});

/** Requests as a caller (bee unless named); `fixture` is read at each call, as it is made in t.before. */
export function historyCallers(fixture: () => IobFixture) {
    const send = (method: string, path: string, body: unknown, who = BEE): Promise<HttpAnswer> =>
        fixture().request(path, { method, body, headers: auth(who) });
    return {
        get: (path: string, who = BEE): Promise<HttpAnswer> => fixture().request(path, { headers: auth(who) }),
        send,
        sendTo: (command: string, data: unknown, who = BEE): Promise<HttpAnswer> =>
            send('POST', '/v1/sendto/history.0', { message: command, data }, who),
    };
}
