/**
 * Records of ended channels this instance keeps in the database for a resume: per user one full set of
 * its streams (10 records of at most 64 KB), in all as many records as streams (200) within 4 MB.
 */
export const ENDED_LIMITS = {
    perUser: { records: 10, bytes: 640 * 1024 },
    total: { records: 200, bytes: 4 * 1024 * 1024 },
};

interface EndedRecord {
    origin: string;
    user: string;
    bytes: number;
    /** When the database lets it go by itself (ms). */
    expires: number;
}

/**
 * The ended channels' records this instance wrote, oldest first. A user who opens and drops channel
 * after channel (each leaves its record for ten minutes) would otherwise fill the database: beyond
 * the limits the oldest records are deleted at once; their resume gets an overflow and a re-read.
 */
export class EndedRecords {
    private records: EndedRecord[] = [];

    constructor(private readonly limits = ENDED_LIMITS) {}

    /** Counts a record that was written; answers the origins whose records must go to keep the limits. */
    add(record: EndedRecord): string[] {
        const now = Date.now();
        this.records = this.records.filter(r => r.expires > now && r.origin !== record.origin);
        this.records.push(record);
        const gone: string[] = [];
        const evict = (within: (r: EndedRecord) => boolean, limit: { records: number; bytes: number }): void => {
            const mine = this.records.filter(within);
            let bytes = mine.reduce((sum, r) => sum + r.bytes, 0);
            while (mine.length > limit.records || bytes > limit.bytes) {
                const oldest = mine.shift()!;
                bytes -= oldest.bytes;
                this.records.splice(this.records.indexOf(oldest), 1);
                gone.push(oldest.origin);
            }
        };
        evict(r => r.user === record.user, this.limits.perUser);
        evict(() => true, this.limits.total);
        return gone;
    }
}
