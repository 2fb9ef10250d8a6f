import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { Permission } from '../access/rules';
import type { RequestContext } from '../context/request-context';

export type { Permission } from '../access/rules';

/**
 * How the return value is wrapped on the wire, as 4.0.2 clients read it:
 * `result` → `{"error":null,"result":value}`, `results` → `{"error":null,"results":[...]}`
 * (the handler returns the array), `raw` → the value itself.
 */
export type Envelope = 'result' | 'results' | 'raw';

/** A raw byte answer, for commands declaring `binary.response`. */
export class BinaryBody {
    constructor(
        readonly data: Buffer,
        readonly mimeType: string,
    ) {}
}

export interface Command<S extends TObject = TObject> {
    /** Public name; must equal the file name. */
    name: string;
    /** One line, shown on the docs page. */
    summary: string;
    description?: string;
    /** A parameter named `id` is the state or object the command acts on: an API token's scope must cover it. */
    params: S;
    /** `null` means: no permission needed (the command only reveals public facts). */
    permission: Permission | null;
    /** `write` commands keep GET for old scripts, the docs mark that GET as legacy. */
    effect: 'read' | 'write';
    envelope: Envelope;
    /**
     * The schema of what the handler answers, before the envelope wraps it (for `raw`: the whole
     * body). The docs, the typed clients and the tests' response checks read it.
     */
    result: TSchema;
    /** Answers 207 with the same body when some of many items failed (setStates). */
    multiStatus?: boolean;
    /** Error statuses the handler itself answers (e.g. 404, 408), beyond those of every command. */
    errors?: number[];
    /**
     * True when the call acts on everything below its `id` (recursive deletes): an API token's write
     * patterns must then cover that whole tree, not only `id`.
     */
    recursive?(params: Static<S>): boolean;
    /** Other names of the same command, kept for old clients; each is served and documented like a command of its own. */
    aliases?: string[];
    /** Manages logins (users, groups, passwords, token lifetimes): no API token may call it, scoped or not. */
    account?: boolean;
    /** Hidden and answered with 404 when `noAdminCommands` is set. */
    adminOnly?: boolean;
    /** The answer carries a secret (a decrypted password): no cache may keep it. */
    noStore?: boolean;
    binary?: { response?: boolean; request?: boolean };
    /** The answer, or a promise of it: hot paths answer from caches without one. */
    handler(params: Static<S>, ctx: RequestContext): unknown;
}

export function defineCommand<const S extends TObject>(command: Command<S>): Command<S> {
    return command;
}
