import type { ChangeFeed } from '../change-feed';

/** A row of js-controller's `custom` view: an object's id and its `common.custom`. */
export interface CustomRow {
    id: string;
    value?: unknown;
}

/**
 * Every object with history settings (js-controller's `custom` view), held from one object change to
 * the next. A limited caller's every state write asks whose series its value joins, and the view runs
 * over every object of the installation: too much per write. Dropped on any object change (any may add
 * or change settings), on the adapter's own object writes and on a link outage; read afresh each time
 * while the caches are off, changes cannot be followed yet, or the subscriptions are not the adapter's
 * own (inside web).
 */
export class HistorySettingsCache {
    private rows: Promise<CustomRow[]> | undefined;
    private watching: Promise<void> | undefined;
    /** Changes are followed: set once js-controller confirmed the subscription. */
    private watched = false;

    constructor(
        private readonly read: () => Promise<CustomRow[]>,
        private readonly feed: Pick<ChangeFeed, 'listen'>,
        private readonly usable: () => boolean,
    ) {}

    async all(): Promise<CustomRow[]> {
        if (!this.usable()) {
            this.rows = undefined;
            return this.read();
        }
        this.watch();
        if (!this.watched) {
            // read afresh until changes are followed (a subscription still on its way never holds a write up)
            return this.read();
        }
        if (!this.rows) {
            const rows = this.read();
            this.rows = rows;
            // a failed read is not kept: the next caller reads again
            rows.catch(() => this.rows === rows && this.clear());
        }
        return this.rows;
    }

    clear(): void {
        this.rows = undefined;
    }

    /** Subscribes once; what is held is trusted only after js-controller confirmed it. */
    private watch(): void {
        this.watching ??= this.feed
            .listen('object', '*', () => this.clear())
            .then(
                () => {
                    this.watched = true;
                },
                () => {
                    this.watching = undefined;
                },
            );
    }
}
