import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../http/http-error';
import type { StoragePort } from '../storage/port';
import { leaves, stateType, type Leaf } from './payload';

/** A receiver name: one ioBroker id segment. */
export const NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** Standard Webhooks: a signature older or newer than this is refused (replays). */
const TOLERANCE_S = 5 * 60;

export interface Receiver {
    name: string;
    secret: string;
}

function equal(a: string, b: string): boolean {
    const left = Buffer.from(a);
    const right = Buffer.from(b);
    return left.length === right.length && timingSafeEqual(left, right);
}

/** The key of a Standard Webhooks secret (`whsec_<base64>`), or the secret's own bytes. */
function hmacKey(secret: string): Buffer {
    return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret);
}

/** Standard Webhooks headers when all three are there and the timestamp is fresh. */
function standardHeaders(
    headers: IncomingHttpHeaders,
    now: number,
): { id: string; timestamp: string; signatures: string } | undefined {
    const id = headers['webhook-id'];
    const timestamp = headers['webhook-timestamp'];
    const signatures = headers['webhook-signature'];
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') {
        return undefined;
    }
    if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_S) {
        return undefined;
    }
    return { id, timestamp, signatures };
}

/**
 * What can be told before the body is read: a `?key=` is checked whole; a signature over the body
 * can only be seen to be there (with a fresh timestamp) and is checked by `authentic` afterwards.
 */
export function mayBeAuthentic(
    secret: string,
    headers: IncomingHttpHeaders,
    key: string | undefined,
    now = Date.now(),
): boolean {
    if (key !== undefined) {
        return equal(key, secret);
    }
    return typeof headers['x-webhook-signature'] === 'string' || standardHeaders(headers, now) !== undefined;
}

/**
 * Whether the request carries the receiver's secret: `?key=`, `X-Webhook-Signature: sha256=<hex>`
 * (HMAC-SHA256 of the body), or the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64>` over `id.timestamp.body`).
 */
export function authentic(
    secret: string,
    body: Buffer,
    headers: IncomingHttpHeaders,
    key: string | undefined,
    now = Date.now(),
): boolean {
    if (key !== undefined) {
        return equal(key, secret);
    }
    const signature = headers['x-webhook-signature'];
    if (typeof signature === 'string') {
        const expected = createHmac('sha256', hmacKey(secret)).update(body).digest('hex');
        return equal(signature.replace(/^sha256=/, ''), expected);
    }
    const standard = standardHeaders(headers, now);
    if (!standard) {
        return false;
    }
    const { id, timestamp, signatures } = standard;
    const expected = createHmac('sha256', hmacKey(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64');
    return signatures.split(' ').some(entry => entry.startsWith('v1,') && equal(entry.slice(3), expected));
}

/**
 * Receivers are channel objects `<namespace>.webhooks.<name>` marked in `native` (the secret stored
 * encrypted with the system secret); their states live below them. Everything goes through the port.
 */
export class ReceiverStore {
    /** Ids known to have their object already, so repeated posts write values only. */
    private readonly created = new Set<string>();

    constructor(
        private readonly storage: StoragePort,
        private readonly namespace: string,
    ) {}

    channelId(name: string): string {
        return `${this.namespace}.webhooks.${name}`;
    }

    async get(name: string): Promise<Receiver | undefined> {
        const obj = await this.storage.getForeignObjectAsync(this.channelId(name));
        const stored = obj?.native?.receiver === true ? obj.native.secret : undefined;
        return typeof stored === 'string' ? { name, secret: this.storage.decrypt(stored) } : undefined;
    }

    async list(): Promise<Array<{ name: string; lastReceived: number | null }>> {
        const prefix = `${this.namespace}.webhooks.`;
        const channels = (await this.storage.getForeignObjectsAsync(`${prefix}*`, 'channel')) ?? {};
        const names = Object.values(channels)
            .filter(obj => obj.native?.receiver === true && !obj._id.slice(prefix.length).includes('.'))
            .map(obj => obj._id.slice(prefix.length))
            .sort();
        const last = names.length
            ? ((await this.storage.getForeignStatesAsync(names.map(n => `${this.channelId(n)}.lastReceived`))) ?? {})
            : {};
        return names.map(name => ({
            name,
            lastReceived: (last[`${this.channelId(name)}.lastReceived`]?.val as number | undefined) ?? null,
        }));
    }

    /** Creates or replaces a receiver; without a secret a random one. */
    async put(name: string, secret = randomBytes(24).toString('base64url')): Promise<Receiver> {
        await this.storage.extendForeignObjectAsync(this.channelId(name), {
            type: 'channel',
            common: { name: `Webhook ${name}` },
            native: { receiver: true, secret: this.storage.encrypt(secret) },
        } as never);
        return { name, secret };
    }

    /** Removes the receiver; its states stay unless `purge`. False when there was none. */
    async delete(name: string, purge: boolean): Promise<boolean> {
        const id = this.channelId(name);
        const obj = await this.storage.getForeignObjectAsync(id);
        if (obj?.native?.receiver !== true) {
            return false;
        }
        if (purge) {
            await this.storage.delForeignObjectAsync(id, { recursive: true });
            [...this.created].filter(known => known.startsWith(`${id}.`)).forEach(known => this.created.delete(known));
        } else {
            await this.storage.setForeignObjectAsync(id, { ...obj, native: {} } as never);
        }
        return true;
    }

    /** Writes a checked payload: each leaf's state (created on first sight), then `raw` and `lastReceived`. */
    async write(name: string, value: unknown, raw: string): Promise<number> {
        const base = this.channelId(name);
        const found: Leaf[] = leaves(value);
        const now = Date.now();
        const all: Array<{ id: string; val: ioBroker.StateValue; common: Partial<ioBroker.StateCommon> }> = [
            ...found.map(leaf => ({
                id: `${base}.${leaf.path}`,
                val: leaf.value,
                common: { name: leaf.path, type: stateType(leaf.value), role: 'state' },
            })),
            { id: `${base}.raw`, val: raw, common: { name: 'Last body as received', type: 'string', role: 'json' } },
            {
                id: `${base}.lastReceived`,
                val: now,
                common: { name: 'Last received', type: 'number', role: 'value.time' },
            },
        ];
        for (const { id, common } of all) {
            if (!this.created.has(id)) {
                await this.storage.setForeignObjectNotExistsAsync(id, {
                    type: 'state',
                    common: { read: true, write: false, ...common },
                    native: {},
                } as never);
                this.created.add(id);
            }
        }
        await Promise.all(all.map(({ id, val }) => this.storage.setForeignStateAsync(id, { val, ack: true, ts: now })));
        return found.length;
    }
}

/** 401 for a wrong secret; the caller counts it against the address. */
export function wrongSecret(): HttpError {
    return new HttpError('UNAUTHORIZED', 'Wrong or missing webhook secret');
}
