/*
 * The command line of `npm run bench` (bench/run.ts), e.g. `npm run bench -- --only http --rounds 5`.
 * Parsed strictly with node:util's parseArgs: an unknown flag or a bad value stops the run with the usage.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** The parts `--only` can name; sharing, conditional, floor, polling, scaling, history, heap and devices run only when named. */
export const PARTS = ['http', 'events', 'listing', 'random', 'large', 'serialize', 'sharing', 'conditional', 'floor', 'polling', 'scaling', 'history', 'heap', 'devices'] as const;
export type Part = (typeof PARTS)[number];

/** The published release `--compare` measures when it names none. */
export const DEFAULT_COMPARE_VERSION = '4.0.2';

export const DEFAULT_RELEASE_CACHE = resolve(homedir(), '.cache', 'iobroker.rest-api-bench');

export interface BenchOptions {
    help: boolean;
    only?: Part;
    /** The published version to measure side by side. */
    compare?: string;
    /** Add the conditional part to a full run. */
    conditional: boolean;
    /** Per autocannon run and rounds per scenario; undefined: the part's own default. */
    seconds?: number;
    rounds?: number;
    polls: number;
    pollRounds: number;
    hooks: number;
    streams: number;
    eventRounds: number;
    /** Sessions of the burst delivery (default 100) or of each polling round (default 10,000). */
    sessions?: number;
    writes: number;
    /** `--only polling` against this instance instead of the embedded runtime. */
    url?: string;
    listingStates: number;
    randomStates: number[];
    /** Sizes of the scaling part: pending polls and event streams. */
    scalePolls: number[];
    scaleStreams: number[];
    largeStates: number;
    /** Replaces our adapter's `nodeProcessParams`; undefined: those of io-package.json. */
    nodeFlags?: string[];
    /** Another build's main.js to measure instead of this one. */
    adapterMain?: string;
    /** A folder for our adapter's CPU profile. */
    profile?: string;
    releaseCache: string;
}

export const USAGE = `Usage: npm run bench -- [flags]   (or: node build/bench/run.js [flags])

  --only <part>             run one part: ${PARTS.join(', ')}
                            (sharing, conditional, floor, polling, scaling, history, heap and devices run only when named; with --compare,
                            random and scaling run beside that release, the other parts are replaced by the compare run)
  --compare [version]       side by side with the published release (default ${DEFAULT_COMPARE_VERSION}); a run of its own
  --conditional             add the conditional part to the run (as --only conditional does alone)
  --seconds <n>             length of one autocannon run (default 8; compare 3, floor 4, sharing 3, heap 5)
  --rounds <n>              runs per scenario and server, medians shown (default 3; floor 5, heap 2)
  --polls <n>               pending long polls of the fan-out (default 10000)
  --poll-rounds <n>         rounds of the compare run's poll fan-out (default 3)
  --hooks <n>               URL hooks of the hook fan-out (default 1000)
  --streams <n>             event streams of the compare run's SSE fan-out (default 1000)
  --event-rounds <n>        rounds of the compare run's SSE and hook fan-outs (default 9)
  --sessions <n>            sessions of the compare run's burst delivery (default 100), or of each
                            polling round (default 10000)
  --url <url>               --only polling against this instance, e.g. http://user:pass@host:8093
                            (without: the embedded runtime with the default limits)
  --writes <n>              writes of the compare run's burst delivery (default 1000)
  --listing-states <n>      states of the limited-user listing (default 10000)
  --random-states <n,n,..>  state counts of the random reads, the first is the hot set (default 1000,10000,50000)
  --scale-polls <n,n,..>    pending polls of the scaling part (default 1000,10000,50000)
  --scale-streams <n,n,..>  event streams of the scaling part (default 1000,10000)
  --large-states <n>        states of the large installation (default 50000)
  --node-flags=<flags>      space-separated Node flags replacing our adapter's nodeProcessParams from
                            io-package.json (e.g. --node-flags=--max-semi-space-size=8; --node-flags= for none)
  --adapter-main <file>     another build's build/src/main.js to measure instead of this one
  --profile <dir>           our adapter writes a CPU profile into <dir> (in the scaling part the bare server
                            too, as bare-server-<time>.cpuprofile)
  --release-cache <dir>     where --compare installs the release (default ~/.cache/iobroker.rest-api-bench)
  -h, --help                this text
`;

/** A command line the bench cannot run: the message says why. */
export class UsageError extends Error {}

function positive(flag: string, text: string | undefined, integer = true): number | undefined {
    if (text === undefined) {
        return undefined;
    }
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
        throw new UsageError(`--${flag} wants a positive ${integer ? 'whole ' : ''}number, not '${text}'`);
    }
    return value;
}

export function parseBenchOptions(args: string[]): BenchOptions {
    // parseArgs knows no optional values: a bare `--compare` means the default release
    const normalized = args.map((arg, i) => (arg === '--compare' && (i + 1 === args.length || args[i + 1].startsWith('-')) ? `--compare=${DEFAULT_COMPARE_VERSION}` : arg));
    const text = { type: 'string' } as const;
    let values;
    try {
        ({ values } = parseArgs({
            args: normalized,
            strict: true,
            allowPositionals: false,
            options: {
                help: { type: 'boolean', short: 'h' },
                only: text,
                compare: text,
                conditional: { type: 'boolean' },
                seconds: text,
                rounds: text,
                polls: text,
                'poll-rounds': text,
                hooks: text,
                streams: text,
                'event-rounds': text,
                sessions: text,
                writes: text,
                'listing-states': text,
                'random-states': text,
                'scale-polls': text,
                'scale-streams': text,
                'large-states': text,
                'node-flags': text,
                'adapter-main': text,
                profile: text,
                'release-cache': text,
                url: text,
            },
        }));
    } catch (err) {
        throw new UsageError((err as Error).message);
    }
    const only = values.only;
    if (only !== undefined && !(PARTS as readonly string[]).includes(only)) {
        throw new UsageError(`--only wants one of ${PARTS.join(', ')}, not '${only}'`);
    }
    if (values.compare === '') {
        throw new UsageError('--compare wants a version, or nothing for the default');
    }
    const sizes = (flag: 'random-states' | 'scale-polls' | 'scale-streams', fallback: string): number[] => (values[flag] ?? fallback).split(',').map(n => positive(flag, n)!);
    const randomStates = sizes('random-states', '1000,10000,50000');
    const path = (flag: 'adapter-main' | 'profile' | 'release-cache'): string | undefined => {
        const value = values[flag];
        if (value === '') {
            throw new UsageError(`--${flag} wants a path`);
        }
        return value === undefined ? undefined : resolve(value);
    };
    return {
        help: values.help ?? false,
        only: only as Part | undefined,
        compare: values.compare,
        conditional: values.conditional ?? false,
        seconds: positive('seconds', values.seconds, false),
        rounds: positive('rounds', values.rounds),
        polls: positive('polls', values.polls) ?? 10_000,
        pollRounds: positive('poll-rounds', values['poll-rounds']) ?? 3,
        hooks: positive('hooks', values.hooks) ?? 1000,
        streams: positive('streams', values.streams) ?? 1000,
        eventRounds: positive('event-rounds', values['event-rounds']) ?? 9,
        sessions: positive('sessions', values.sessions),
        writes: positive('writes', values.writes) ?? 1000,
        listingStates: positive('listing-states', values['listing-states']) ?? 10_000,
        randomStates,
        scalePolls: sizes('scale-polls', '1000,10000,50000'),
        scaleStreams: sizes('scale-streams', '1000,10000'),
        largeStates: positive('large-states', values['large-states']) ?? 50_000,
        nodeFlags: values['node-flags']?.split(/\s+/).filter(Boolean),
        adapterMain: path('adapter-main'),
        profile: path('profile'),
        releaseCache: path('release-cache') ?? DEFAULT_RELEASE_CACHE,
        url: urlOption(values.url, only),
    };
}

function urlOption(value: string | undefined, only: string | undefined): string | undefined {
    if (value === undefined) {
        return undefined;
    }
    if (only !== 'polling') {
        throw new UsageError('--url is for --only polling');
    }
    let url: URL;
    try {
        url = new URL(value);
    } catch {
        throw new UsageError(`--url wants an address such as http://127.0.0.1:8093, not '${value}'`);
    }
    if (url.protocol !== 'http:') {
        throw new UsageError(`--url wants an http:// address, not '${value}'`);
    }
    return value;
}
