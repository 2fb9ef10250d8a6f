import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { warnOnFailure } from '../instance/warn-on-failure';
import type { Acl, AclCache } from '../access/rules';
import { HttpError } from '../http/http-error';
import type { CoherentCache } from '../storage/cache/coherent-cache';
import { secretOf } from './system-secret';
import type { StoragePort } from '../storage/port';
import type { BruteForceGuard } from './brute-force';
import { objectsBelow } from '../storage/objects-below';
import { compileScope, type CompiledScope, type TokenScope } from '../access/scope';
import {
    hashOf,
    info,
    sealMatches,
    sealOf,
    stored,
    TOKEN_OBJECT,
    type StoredToken,
    type TokenInfo,
} from './token-records';

export type { TokenInfo } from './token-records';

/*
 * Long-lived API tokens, each for one user and optionally narrowed by a scope. Only a SHA-256 hash of
 * the secret is kept, in a `config` object of the instance that issued it; the token names that
 * object, so every instance on the same database verifies it, and a revoke is seen at once through
 * the coherent object cache. Each record is sealed with an HMAC keyed by the system secret: a user
 * who may write objects cannot forge a record for another user or widen a scope.
 */

/** `restapi_<instance>_<id>_<secret>`: recognisable in a leak scan, and never an OAuth token (40 hex). */
const TOKEN_FORMAT = /^restapi_(\d{1,4})_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** `lastUsed` is written at most this often per token: a busy integration must not write an object per request. */
const LAST_USED_EVERY_MS = 60_000;
/**
 * The name failed tokens are damped under: one per address, because a wrong token names no user whose
 * lock could follow it elsewhere (one shared name would lock every address that ever failed once).
 */
const guardName = (address: string): string => `\u0000api-token ${address}`;
const DAY_MS = 24 * 3600 * 1000;

export function isApiToken(text: string): boolean {
    return text.startsWith('restapi_');
}

function newId(): string {
    const bytes = randomBytes(16);
    return Array.from(bytes, b => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

export interface NewToken {
    name: string;
    expiresInDays?: number;
    scope?: TokenScope;
}

export class ApiTokens {
    /** Scopes compiled once per version of a token object (a change makes a new object). */
    private readonly compiled = new WeakMap<object, CompiledScope>();
    /** Object versions whose seal was checked: one HMAC per version, not per request. */
    private readonly checked = new WeakMap<object, boolean>();
    private readonly lastWrites = new Map<string, number>();
    private readonly instance: string;
    private sealKey: Promise<Buffer> | null = null;

    private readonly adapterName: string;

    constructor(
        private readonly storage: StoragePort,
        namespace: string,
        private readonly objects: CoherentCache<ioBroker.Object>,
        private readonly acls: AclCache,
        private readonly guard: BruteForceGuard,
        private readonly now: () => number = Date.now,
    ) {
        this.instance = namespace.slice(namespace.lastIndexOf('.') + 1);
        this.adapterName = namespace.slice(0, namespace.lastIndexOf('.'));
    }

    private objectId(id: string, instance = this.instance): string {
        return `${this.adapterName}.${instance}.tokens.${id}`;
    }

    /** Creates a token for `user`; the secret is in the answer and nowhere else. */
    async create(user: string, { name, expiresInDays, scope }: NewToken): Promise<TokenInfo & { token: string }> {
        const id = newId();
        const secret = randomBytes(32).toString('base64url');
        const created = this.now();
        const record = {
            apiToken: true as const,
            hash: hashOf(secret).toString('hex'),
            user,
            name,
            ...(scope ? { scope } : {}),
            created,
            expires: expiresInDays ? created + expiresInDays * DAY_MS : null,
            lastUsed: null,
        };
        const token: StoredToken = { ...record, seal: await this.seal(this.objectId(id), record) };
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
        return (await this.records(`${prefix}*`))
            .filter(([, token]) => user === undefined || token.user === user)
            .map(([objectId, token]) => info(objectId.slice(prefix.length), token))
            .sort((a, b) => a.created - b.created);
    }

    /** Token records by object id under `pattern` (every instance's with `<adapter>.*`). */
    private async records(pattern: string): Promise<Array<[string, StoredToken]>> {
        return (await objectsBelow(this.storage, pattern.replace(/\*$/, ''), 'config'))
            .filter(obj => TOKEN_OBJECT.test(obj._id))
            .map(obj => [obj._id, stored(obj)] as [string, StoredToken | undefined])
            .filter((entry): entry is [string, StoredToken] => !!entry[1]);
    }

    /**
     * Deletes a token of this instance; `user` undefined: any user's (administrators). Answers whose
     * it was (its owner, for dropping its hooks), or undefined when there is none to delete.
     */
    async revoke(id: string, user?: string): Promise<{ ref: string; user: string } | undefined> {
        if (!/^[A-Za-z0-9]{16}$/.test(id)) {
            return undefined;
        }
        const ref = this.objectId(id);
        const token = stored(await this.storage.getForeignObjectAsync(ref));
        if (!token || (user !== undefined && token.user !== user)) {
            return undefined;
        }
        await this.storage.delForeignObjectAsync(ref);
        return { ref, user: token.user };
    }

    /** Deletes every token of a user on every instance (the user was deleted): a new user of that name must not inherit them. */
    async revokeUser(user: string): Promise<void> {
        for (const [ref, token] of await this.records(`${this.adapterName}.*`)) {
            if (token.user === user) {
                await this.storage
                    .delForeignObjectAsync(ref)
                    .catch(warnOnFailure(this.storage.log, `Deleting the API token ${ref}`));
            }
        }
    }

    /** Deletes the tokens, of every instance, whose user is gone (deleted while no instance was running). */
    async sweep(): Promise<void> {
        const users = new Set((await objectsBelow(this.storage, 'system.user.', 'user')).map(user => user._id));
        for (const [ref, token] of await this.records(`${this.adapterName}.*`)) {
            if (!users.has(token.user)) {
                await this.storage
                    .delForeignObjectAsync(ref)
                    .catch(warnOnFailure(this.storage.log, `Deleting the API token ${ref}`));
            }
        }
    }

    /**
     * The rights a request with `text` runs with: its user's ACL narrowed by its scope. 401 for an
     * unknown, revoked, expired or disabled one. Wrong tokens are damped per address like passwords
     * (429 while locked); a valid token is never held up by someone else's failures at that address.
     */
    async verify(text: string, address: string): Promise<Acl> {
        const lockedOut = this.lockOf(address);
        const match = TOKEN_FORMAT.exec(text);
        const ref = match ? this.objectId(match[2], match[1]) : '';
        // a locked address gets no database read: only a token already in the cache (one in use) can pass
        const obj = !match ? null : lockedOut ? this.objects.peek(ref) : await this.objects.get(ref).catch(() => null);
        const token = stored(obj);
        if (!match || !obj || !token || !timingSafeEqual(hashOf(match[3]), Buffer.from(token.hash, 'hex'))) {
            if (lockedOut) {
                throw lockedOut;
            }
            this.guard.failed(address, guardName(address));
            throw new HttpError('UNAUTHORIZED', 'Invalid API token');
        }
        const acl = await this.aclFor(ref, obj);
        if (!acl) {
            throw new HttpError('UNAUTHORIZED', 'API token expired, revoked or its user disabled');
        }
        this.touch(ref, token);
        return acl;
    }

    /** The 429 of an address damped for wrong tokens, or undefined while it is not. */
    private lockOf(address: string): HttpError | undefined {
        try {
            this.guard.assertAllowed(address, guardName(address));
            return undefined;
        } catch (err) {
            return err as HttpError;
        }
    }

    /** The rights of a token now, by its object id; null when it is revoked, expired, unsealed, or its user gone or disabled. */
    async aclOf(ref: string): Promise<Acl | null> {
        const obj = await this.objects.get(ref).catch(() => null);
        return obj ? this.aclFor(ref, obj) : null;
    }

    /** `aclOf` for the token object already read. */
    private async aclFor(ref: string, obj: ioBroker.Object): Promise<Acl | null> {
        const token = stored(obj);
        if (!token || (token.expires !== null && token.expires <= this.now())) {
            return null;
        }
        let sealed = this.checked.get(obj);
        if (sealed === undefined) {
            sealed = await this.sealed(ref, token);
            this.checked.set(obj, sealed);
        }
        if (!sealed) {
            return null;
        }
        const user = await this.objects.get(token.user).catch(() => null);
        if (user?.type !== 'user' || (user.common as { enabled?: boolean } | undefined)?.enabled === false) {
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

    private async seal(ref: string, record: Omit<StoredToken, 'seal'>): Promise<string> {
        return sealOf(await this.key(), ref, record);
    }

    private async sealed(ref: string, token: StoredToken): Promise<boolean> {
        return sealMatches(await this.key(), ref, token);
    }

    /** A key only the adapter (and administrators) can derive: every instance on the database shares the system secret. */
    private key(): Promise<Buffer> {
        this.sealKey ??= this.storage.getForeignObjectAsync('system.config').then(config => {
            const secret = secretOf(config);
            if (!secret) {
                throw new HttpError('UNAVAILABLE', 'The system has no secret to seal API tokens with');
            }
            return createHmac('sha256', secret).update('rest-api API tokens').digest();
        });
        this.sealKey.catch(() => (this.sealKey = null));
        return this.sealKey;
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
        void this.storage
            .extendForeignObjectAsync(ref, { native: { lastUsed: now } })
            .catch(warnOnFailure(this.storage.log, `Noting the last use of ${ref}`));
    }
}
