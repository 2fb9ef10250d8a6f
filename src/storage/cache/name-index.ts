const TTL_MS = 60_000;

type NameSource = () => Promise<Array<{ id: string; name: unknown }>>;

function plainName(name: unknown): string | undefined {
    if (typeof name === 'string') {
        return name;
    }
    if (name && typeof name === 'object' && typeof (name as Record<string, unknown>).en === 'string') {
        return (name as Record<string, string>).en;
    }
    return undefined;
}

/**
 * Resolves a state's `common.name` to its id, as 4.0.2's state routes allow. The index is rebuilt
 * at most once a minute, so unknown ids cannot trigger a full object scan per request.
 */
export class NameIndex {
    private index: Map<string, string> | null = null;
    private builtAt = 0;
    private building: Promise<Map<string, string>> | null = null;

    constructor(private readonly source: NameSource) {}

    async lookup(name: string): Promise<string | undefined> {
        return (await this.current()).get(name);
    }

    private async current(): Promise<Map<string, string>> {
        if (this.index && Date.now() - this.builtAt < TTL_MS) {
            return this.index;
        }
        this.building ??= this.build().finally(() => (this.building = null));
        return this.building;
    }

    private async build(): Promise<Map<string, string>> {
        const index = new Map<string, string>();
        for (const { id, name } of await this.source()) {
            const text = plainName(name);
            if (text && !index.has(text)) {
                index.set(text, id);
            }
        }
        this.index = index;
        this.builtAt = Date.now();
        return index;
    }
}
