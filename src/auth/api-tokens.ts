import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Acl, AclCache } from '../acl';
import { HttpError } from '../http-error';
import type { CoherentCache } from '../lib/coherent-cache';
import type { StoragePort } from '../storage/port';
import type { BruteForceGuard } from './brute-force';
import { compileScope, type CompiledScope, type TokenScope } from './scope';

/*
 * Long-lived API tokens, each for one user and optionally narrowed by a scope. Only a SHA-256 hash of
 * the secret is kept, in a `config` object of the instance that issued it; the token names that
 * object, so every instance on the same database verifies it, and a revoke is seen at once through
 * the coherent object cache.
 */

/** `restapi_<instance>_<id>_<secret>`: recognisable in a leak scan, and never an OAuth token (40 hex). */
const TOKEN_FORMAT = /^restapi_(\d{1,4})_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** `lastUsed` is written at most this often per token: a busy integration must not write an object per request. */
const LAST_USED_EVERY_MS = 60_000;
/** The name under which failed token guesses are damped, apart from any user name. */
const GUARD_NAME = '\u0000api-token';
const DAY_MS = 24 * 3600 * 1000;

export function isApiToken(text: string): boolean {
    return text.startsWith('restapi_');
}

interface StoredToken {
    apiToken: true;
    hash: string;
    user: string;
    name: string;
    scope?: TokenScope;
    created: number;
    expires: number | null;
    lastUsed: number | null;
}

/** What the owner and administrators see of a token: never its secret or hash. */
export interface TokenInfo {
    id: string;
    name: string;
    user: string;
    scope: TokenScope | null;
    created: number;
    expires: number | null;
    lastUsed: number | null;
}

function newId(): string {
    const bytes = randomBytes(16);
    return Array.from(bytes, b => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

function hashOf(secret: string): Buffer {
    return createHash('sha256').update(secret).digest();
}

function stored(obj: ioBroker.Object | null | undefined): StoredToken | undefined {
    const native = obj?.native as Partial<StoredToken> | undefined;
    return native?.apiToken === true && typeof native.hash === 'string' && typeof native.user === 'string' ? (native as StoredToken) : undefined;
}

function info(id: string, token: StoredToken): TokenInfo {
    return { id, name: token.name, user: token.user, scope: token.scope ?? null, created: token.created, expires: token.expires, lastUsed: token.lastUsed };
}

export interface NewToken {
    name: string;
    expiresInDays?: number;
    scope?: TokenScope;
}

export class ApiTokens {
    /** Scopes compiled once per version of a token object (a change makes a new object). */
    private readonly compiled = new WeakMap<object, CompiledScope>();
    private readonly lastWrites = new Map<string, number>();
    private readonly instance: string;

    constructor(
        private readonly storage: StoragePort,
        private readonly namespace: string,
        private readonly objects: CoherentCache<ioBroker.Object>,
        private readonly acls: AclCache,
        private readonly guard: BruteForceGuard,
        private readonly now: () => number = Date.now,
    ) {
        this.instance = namespace.slice(namespace.lastIndexOf('.') + 1);
    }

    private objectId(id: string, instance = this.instance): string {
        return `${this.namespace.slice(0, this.namespace.lastIndexOf('.'))}.${instance}.tokens.${id}`;
    }

    /** Creates a token for `user`; the secret is in the answer and nowhere else. */
    async create(user: string, { name, expiresInDays, scope }: NewToken): Promise<TokenInfo & { token: string }> {
        const id = newId();
        const secret = randomBytes(32).toString('base64url');
        const created = this.now();
        const token: StoredToken = {
            apiToken: true,
            hash: hashOf(secret).toString('hex'),
            user,
            name,
            ...(scope ? { scope } : {}),
            created,
            expires: expiresInDays ? created + expiresInDays * DAY_MS : null,
            lastUsed: null,
        };
        await this.storage.setForeignObjectAsync(this.objectId(id), {
            type: 'config',
            common: { name: `API token ${name}` },
            native: token,
            // the hash and owner are for administrators only
            acl: { owner: 'system.user.admin', ownerGroup: 'system.group.administrator', object: 0x600 },
        } as never);
        return { ...info(id, token), token: `restapi_${this.instance}_${id}_${secret}` };
    }

    /** This instance's tokens, of one user or (undefined) of everyone, oldest first. */
    async list(user?: string): Promise<TokenInfo[]> {
        const prefix = this.objectId('');
        const objects = (await this.storage.getForeignObjectsAsync(`${prefix}*`, 'config')) ?? {};
        return Object.values(objects)
            .map(obj => [obj._id.slice(prefix.length), stored(obj)] as const)
            .filter((entry): entry is readonly [string, StoredToken] => !!entry[1] && (user === undefined || entry[1].user === user))
            .map(([id, token]) => info(id, token))
            .sort((a, b) => a.created - b.created);
    }

    /** Deletes a token of this instance; `user` undefined: any user's (administrators). False when there is none to delete. */
    async revoke(id: string, user?: string): Promise<boolean> {
        if (!/^[A-Za-z0-9]{16}$/.test(id)) {
            return false;
        }
        const objectId = this.objectId(id);
        const token = stored(await this.storage.getForeignObjectAsync(objectId));
        if (!token || (user !== undefined && token.user !== user)) {
            return false;
        }
        await this.storage.delForeignObjectAsync(objectId);
        return true;
    }

    /** Deletes every token of a user (the user was deleted); a new user of the same name must not inherit them. */
    async revokeUser(user: string): Promise<void> {
        for (const token of await this.list(user)) {
            await this.storage.delForeignObjectAsync(this.objectId(token.id)).catch(() => undefined);
        }
    }

    /** Deletes the tokens whose user is gone (deleted while no instance was running). */
    async sweep(): Promise<void> {
        const users = new Set(Object.keys((await this.storage.getForeignObjectsAsync('system.user.*', 'user')) ?? {}));
        for (const token of await this.list()) {
            if (!users.has(token.user)) {
                await this.storage.delForeignObjectAsync(this.objectId(token.id)).catch(() => undefined);
            }
        }
    }

    /**
     * The rights a request with `text` runs with: its user's ACL narrowed by its scope. 401 for an
     * unknown, revoked, expired or disabled one; wrong secrets are damped per address like passwords (429).
     */
    async verify(text: string, address: string): Promise<Acl> {
        this.guard.assertAllowed(address, GUARD_NAME);
        const match = TOKEN_FORMAT.exec(text);
        const ref = match ? this.objectId(match[2], match[1]) : '';
        const obj = match ? await this.objects.get(ref) : null;
        const token = stored(obj);
        const hash = match && hashOf(match[3]);
        if (!token || !hash || !timingSafeEqual(hash, Buffer.from(token.hash.padEnd(64, '0').slice(0, 64), 'hex'))) {
            this.guard.failed(address, GUARD_NAME);
            throw new HttpError('UNAUTHORIZED', 'Invalid API token');
        }
        const acl = await this.aclOf(ref);
        if (!acl) {
            throw new HttpError('UNAUTHORIZED', 'API token expired or its user disabled');
        }
        this.touch(ref, token);
        return acl;
    }

    /** The rights of a token now, by its object id; null when it is revoked, expired, or its user gone or disabled. */
    async aclOf(ref: string): Promise<Acl | null> {
        const obj = await this.objects.get(ref).catch(() => null);
        const token = stored(obj);
        if (!obj || !token || (token.expires !== null && token.expires <= this.now())) {
            return null;
        }
        const user = await this.objects.get(token.user).catch(() => null);
        if (user?.type !== 'user' || (user.common as { enabled?: boolean }).enabled === false) {
            return null;
        }
        let scope = this.compiled.get(obj);
        if (!scope && token.scope) {
            scope = compileScope(token.scope);
            this.compiled.set(obj, scope);
        }
        const id = ref.slice(ref.lastIndexOf('.') + 1);
        return { ...(await this.acls.get(token.user)), token: { id, ref, ...(scope ? { scope } : {}) } };
    }

    private touch(ref: string, token: StoredToken): void {
        const now = this.now();
        const last = Math.max(token.lastUsed ?? 0, this.lastWrites.get(ref) ?? 0);
        if (now - last < LAST_USED_EVERY_MS) {
            return;
        }
        this.lastWrites.set(ref, now);
        if (this.lastWrites.size > 10_000) {
            this.lastWrites.delete(this.lastWrites.keys().next().value!);
        }
        void this.storage.extendForeignObjectAsync(ref, { native: { lastUsed: now } }).catch(() => undefined);
    }
}
