import { userOf } from '../access/owner';
import { HttpError } from '../http/http-error';

export interface LimitCounts {
    perUser: number;
    total: number;
}

/**
 * Counts of open things (polling sessions, URL hooks, event streams) per user and in all, kept as
 * they open and close, so a check costs the same with 10,000 open as with one. Over a limit: 429.
 */
export class UserLimits {
    private readonly counts = new Map<string, number>();
    private all = 0;

    constructor(
        readonly limits: LimitCounts,
        /** What the 429 says, e.g. `Too many URL hooks`, and when to retry (seconds). */
        private readonly refusal: { message: string; retryAfterS?: number },
    ) {}

    /** `user` may be an owner (src/access/owner.ts): an API token's things count against its user. */
    count(user?: string): number {
        return user === undefined ? this.all : (this.counts.get(userOf(user)) ?? 0);
    }

    hasRoom(user: string): boolean {
        return this.all < this.limits.total && this.count(user) < this.limits.perUser;
    }

    /** 429 unless `user` may open one more. */
    assertRoom(user: string, context: Record<string, unknown> = {}): void {
        if (!this.hasRoom(user)) {
            const { message, retryAfterS } = this.refusal;
            throw new HttpError('TOO_MANY_REQUESTS', message, {
                context,
                headers: retryAfterS ? { 'Retry-After': String(retryAfterS) } : undefined,
            });
        }
    }

    opened(user: string): void {
        this.counts.set(userOf(user), this.count(user) + 1);
        this.all++;
    }

    closed(user: string): void {
        const left = this.count(user) - 1;
        if (left < 0) {
            return;
        }
        if (left > 0) {
            this.counts.set(userOf(user), left);
        } else {
            this.counts.delete(userOf(user));
        }
        this.all--;
    }

    clear(): void {
        this.counts.clear();
        this.all = 0;
    }
}
