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
 * while the caches are off or changes cannot be followed.
 */
export class HistorySettingsCache {
    private rows: Promise<CustomRow[]> | undefined;
    private watching: Promise<boolean> | undefined;

    constructor(
        private readonly read: () => Promise<CustomRow[]>,
        private readonly feed: Pick<ChangeFeed, 'listen'>,
        private readonly usable: () => boolean,
    ) {}

    async all(): Promise<CustomRow[]> {
        if (!this.usable() || !(await this.watch())) {
            this.rows = undefined;
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

    /** Whether object changes reach this cache: only then is what it holds trusted. */
    private watch(): Promise<boolean> {
        this.watching ??= this.feed
            .listen('object', '*', () => this.clear())
            .then(
                () => true,
                () => {
                    this.watching = undefined;
                    return false;
                },
            );
        return this.watching;
    }
}
