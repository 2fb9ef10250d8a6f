/*
 * Request throughput of the hot paths against a bare node:http server in the same run, interleaved.
 * `node build/bench/http.js` prints a table and returns the figures; see bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cpuProfileFlags, statusMB, tracked, type BenchRuntime } from './fixture';
import type { Storage } from '../scripts/embedded-storage';
import { stopProcess } from '../scripts/stop-process';

export interface Scenario {
    name: string;
    method?: string;
    path: string;
    body?: unknown;
}

export interface LoadResult {
    rps: number;
    p50: number;
    p99: number;
    non2xx: number;
    errors: number;
    timeouts: number;
}

export const VALUE_ID = '0_userdata.0.bench_value1';

export const SCENARIOS: Scenario[] = [
    { name: 'GET /v1/state/:id', path: `/v1/state/${VALUE_ID}` },
    { name: 'GET /v1/state/:id/plain', path: `/v1/state/${VALUE_ID}/plain` },
    { name: 'GET /v1/command/getState', path: `/v1/command/getState?id=${VALUE_ID}` },
    { name: 'PATCH /v1/state/:id', method: 'PATCH', path: `/v1/state/${VALUE_ID}`, body: { val: 42, ack: true } },
    { name: 'GET /v1/states?filter=(one instance)', path: '/v1/states?filter=system.adapter.rest-api.0.*' },
    { name: 'GET /v1/object/:id', path: '/v1/object/system.adapter.rest-api.0' },
];

/**
 * Starts the bare server in a process of its own; resolves with its base URL. With `storage`, its fan-outs
 * can fire on a state change; with `profileDir`, it writes a CPU profile there when stopped.
 */
export async function startBare(storage?: Storage, profileDir?: string): Promise<{ baseUrl: string; rss(): number; stop(): void }> {
    // the states DB's connection as the argument, as load.js gets its options
    const args = storage ? [JSON.stringify(storage.config.states)] : [];
    const profile = cpuProfileFlags(profileDir, `bare-server-${Date.now()}.cpuprofile`);
    const child: ChildProcess = spawn(process.execPath, [...profile, join(__dirname, 'bare-server.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const stop = tracked('processes', () => stopProcess(child));
    const line = await new Promise<string>(resolve => createInterface({ input: child.stdout! }).once('line', resolve));
    return { baseUrl: `http://127.0.0.1:${JSON.parse(line).port}`, rss: () => statusMB(child, 'VmRSS'), stop: () => void stop() };
}

export function load(url: string, scenario: Scenario, seconds: number, extra: Record<string, unknown> = {}): Promise<LoadResult> {
    const options = {
        ...extra,
        url,
        connections: 10,
        duration: seconds,
        method: scenario.method ?? 'GET',
        ...(scenario.body ? { body: JSON.stringify(scenario.body), headers: { 'Content-Type': 'application/json' } } : {}),
    };
    return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [join(__dirname, 'load.js'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout!.on('data', chunk => (out += chunk));
        child.on('exit', code => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited with ${code}`))));
    });
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** What a table row shows of some rounds against the adapter and the bare server: medians. */
export type RoundFigures = Omit<ScenarioFigures, 'scenario'>;

export function roundFigures(ours: LoadResult[], bare: LoadResult[]): RoundFigures {
    const rps = median(ours.map(r => r.rps));
    const bareRps = median(bare.map(r => r.rps));
    return {
        rps: Math.round(rps),
        bareRps: Math.round(bareRps),
        ratio: Math.round((rps / bareRps) * 100) / 100,
        p50Ms: median(ours.map(r => r.p50)),
        p99Ms: median(ours.map(r => r.p99)),
        non2xx: ours.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
    };
}

export interface ScenarioFigures {
    scenario: string;
    rps: number;
    bareRps: number;
    ratio: number;
    p50Ms: number;
    p99Ms: number;
    non2xx: number;
}

const WARMUP_SECONDS = 2;

/** Each scenario `rounds` times against the bare server, then the adapter; medians of the rounds. */
export async function measureHttp(rt: BenchRuntime, bareUrl: string, seconds: number, rounds: number): Promise<ScenarioFigures[]> {
    const figures: ScenarioFigures[] = [];
    for (const scenario of SCENARIOS) {
        const bare: LoadResult[] = [];
        const ours: LoadResult[] = [];
        // not counted: both servers compile the scenario's path and fill caches first
        await load(bareUrl + scenario.path, scenario, WARMUP_SECONDS);
        await load(rt.baseUrl + scenario.path, scenario, WARMUP_SECONDS);
        for (let round = 0; round < rounds; round++) {
            bare.push(await load(bareUrl + scenario.path, scenario, seconds));
            ours.push(await load(rt.baseUrl + scenario.path, scenario, seconds));
        }
        figures.push({ scenario: scenario.name, ...roundFigures(ours, bare) });
    }
    return figures;
}
