/*
 * Two rest-api processes on one Redis behind a round-robin proxy without sticky sessions, tried as an
 * integrator with a load balancer would: any instance answers any request, reads see the writes the
 * other one answered, an event stream resumes on the other instance without a silent gap, failed
 * logins count once, and one instance dying loses no request the proxy retries.
 */
import t from 'tap';
import { createState, createUser } from '../support/iobroker';
import { startCluster, type Cluster } from '../support/cluster';
import { hasRedis } from '../support/redis';
import { basic } from '../support/raw-request';
import {
    documentedConfig,
    HAPROXY,
    NGINX,
    runHaproxy,
    runNginx,
    skipWithout,
    substitute,
    type RunningProxy,
} from '../support/doc-proxy';
import { freePort } from '../support/ports';
import { openSse, type SseEvent } from '../support/sse-client';
import { sleep, until } from '../support/until';

const ADMIN = basic('admin', 'iobroker');
const ID = '0_userdata.0.cluster.value';

if (!hasRedis() && !process.env.CI) {
    t.test(
        'two instances on Redis',
        { skip: 'redis-server is not installed (apt-get install redis-server); CI installs it' },
        async () => undefined,
    );
} else {
    let cluster: Cluster;
    t.before(async () => {
        cluster = await startCluster(2, { auth: true });
        await createState(cluster.storage, ID, { type: 'number' }, 0);
        await createUser(cluster.storage, 'guessed', { state: { read: true } }, 'right');
        // both alive states are set: each instance knows the other lives
        const alive = async () => {
            const states = await Promise.all(
                [0, 1].map(n => cluster.storage.states.getStateAsync(`system.adapter.rest-api.${n}.alive`)),
            );
            return states.every((s: ioBroker.State | null) => s?.val === true);
        };
        await until(alive, 20_000);
    });
    t.teardown(() => cluster?.stop());

    const call = async (
        path: string,
        init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
    ) => {
        const res = await fetch(`${cluster.baseUrl}${path}`, {
            method: init.method ?? 'GET',
            headers: {
                ...ADMIN,
                ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
                ...init.headers,
            },
            body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
        const text = await res.text();
        const json = res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
        return { status: res.status, headers: res.headers, json };
    };

    t.test('a write answered by one instance is what the other one reads next, every round', async t => {
        // warm both caches: a stale value would come from there
        for (let i = 0; i < 4; i++) {
            await call(`/v1/state/${ID}`);
        }
        const stale: number[] = [];
        for (let val = 1; val <= 1000; val++) {
            if (val === 500) {
                // shift the turn: writes now land on the other instance
                await call('/name');
            }
            t.equal((await call(`/v1/state/${ID}`, { method: 'PATCH', body: { val } })).status, 200);
            const read = await call(`/v1/state/${ID}`);
            if (read.json?.val !== val) {
                stale.push(val);
            }
        }
        t.same(stale, [], 'no read went back behind an answered write');
    });

    t.test('an event stream resumed on the other instance gets the change it missed, never a silent gap', async t => {
        const [a, b] = cluster.nodes.map(n => `http://127.0.0.1:${n.port}`);
        const data = (e: SseEvent) => JSON.parse(e.data ?? 'null');
        // b already streams the pattern, with a sequence of its own past a's
        const busy = await openSse(`${b}/v1/events?pattern=${ID}`, ADMIN);
        for (let val = 2001; val <= 2005; val++) {
            await call(`/v1/state/${ID}`, { method: 'PATCH', body: { val } });
        }
        const first = await openSse(`${a}/v1/events?pattern=${ID}`, ADMIN);
        await call(`/v1/state/${ID}`, { method: 'PATCH', body: { val: 2006 } });
        // the notification of 2005 may still have been on its way to a when the stream opened
        let seen = await first.nextEvent();
        while (data(seen)?.state?.val === 2005) {
            seen = await first.nextEvent();
        }
        t.match(data(seen), { state: { val: 2006 } });
        first.close();
        await call(`/v1/state/${ID}`, { method: 'PATCH', body: { val: 2007 } });
        const resumed = await openSse(`${b}/v1/events?pattern=${ID}`, { ...ADMIN, 'Last-Event-ID': seen.id! });
        const next = await resumed.nextEvent();
        t.not(next.event, 'overflow', "replayed from a's log: nothing lost");
        t.match(data(next), { state: { val: 2007 } }, 'the change it missed, never a silent gap');
        resumed.close();
        busy.close();
    });

    t.test('a limited user has its group rights on Redis too, on both instances', async t => {
        // js-controller's typed group view keys by name on Redis: rights must not depend on it
        await createUser(cluster.storage, 'reader', { state: { read: true }, object: { read: true } }, 'pw');
        for (const node of cluster.nodes) {
            const base = `http://127.0.0.1:${node.port}`;
            const state = await fetch(`${base}/v1/state/${ID}`, { headers: basic('reader', 'pw') });
            t.equal(state.status, 200, `${node.namespace} reads the state as reader: ${await state.text()}`);
            const write = await fetch(`${base}/v1/state/${ID}`, {
                method: 'PATCH',
                headers: { ...basic('reader', 'pw'), 'Content-Type': 'application/json' },
                body: '{"val":1}',
            });
            t.equal(
                write.status,
                403,
                `${node.namespace} refuses the write: the group has no state write (${await write.text()})`,
            );
        }
    });

    t.test('an API token survives the start-up sweep of another instance on Redis', async t => {
        // the sweep deletes tokens of deleted users: it must find the users that exist
        const [a, b] = cluster.nodes;
        const created = await fetch(`http://127.0.0.1:${a.port}/v1/tokens`, {
            method: 'POST',
            headers: { ...ADMIN, 'Content-Type': 'application/json' },
            body: JSON.stringify({ name: 'kept' }),
        });
        t.equal(created.status, 201);
        const { token } = (await created.json()) as { token: string };
        await b.kill();
        await b.start();
        for (const node of cluster.nodes) {
            const res = await fetch(`http://127.0.0.1:${node.port}/v1/state/${ID}`, {
                headers: { Authorization: `Bearer ${token}` },
            });
            await res.arrayBuffer();
            t.equal(res.status, 200, `${node.namespace} still accepts the token`);
        }
    });

    t.test('wrong passwords spread over both instances lock the name on both after five', async t => {
        for (let attempt = 0; attempt < 5; attempt++) {
            const res = await call(`/v1/state/${ID}`, { headers: basic('guessed', `wrong${attempt}`) });
            t.equal(res.status, 401, `attempt ${attempt + 1}`);
        }
        // each instance saw two or three itself; the others' reach it through Redis within milliseconds
        await sleep(300);
        for (const node of cluster.nodes) {
            const res = await fetch(`http://127.0.0.1:${node.port}/v1/state/${ID}`, {
                headers: basic('guessed', 'right'),
            });
            await res.arrayBuffer();
            t.equal(res.status, 429, `${node.namespace} holds the lock, even for the right password`);
        }
    });

    /** The documented configuration with the instances' and the public addresses filled in. */
    const filledIn = (lang: string, publicLine: [string, string]): string =>
        substitute(documentedConfig('several-instances.md', lang), {
            '192.168.1.10:8093': `127.0.0.1:${cluster.nodes[0].port}`,
            '192.168.1.11:8093': `127.0.0.1:${cluster.nodes[1].port}`,
            [publicLine[0]]: publicLine[1],
        });

    /** `count` reads at concurrency 10 through `base`; `atHalf` runs when half are issued. */
    const reads = async (base: string, count: number, atHalf: () => void): Promise<number[]> => {
        const statuses: number[] = [];
        let issued = 0;
        const worker = async () => {
            while (issued < count) {
                issued++;
                if (issued === count / 2) {
                    atHalf();
                }
                statuses.push(
                    await fetch(`${base}/v1/state/${ID}`, { headers: ADMIN }).then(
                        async res => (await res.arrayBuffer(), res.status),
                        () => 0,
                    ),
                );
            }
        };
        await Promise.all(Array.from({ length: 10 }, worker));
        return statuses;
    };

    const documented = [
        {
            name: 'nginx',
            binary: NGINX,
            lang: 'nginx',
            pkg: 'nginx-light',
            publicLine: (port: number): [string, string] => ['listen 80;', `listen 127.0.0.1:${port};`],
            run: runNginx,
        },
        {
            name: 'HAProxy',
            binary: HAPROXY,
            lang: 'haproxy',
            pkg: 'haproxy',
            publicLine: (port: number): [string, string] => ['bind :80 ', `bind 127.0.0.1:${port} `],
            run: runHaproxy,
        },
    ];

    // one kill for all three: the test's own proxy and the nginx and HAProxy set-ups of
    // docs/en/several-instances.md, run as written
    t.test(
        'one instance killed in the middle of reads at concurrency 10, through each proxy at once: every read succeeds',
        async t => {
            const proxies: Array<{ name: string; base: string; count: number; proxy?: RunningProxy }> = [
                { name: 'the round-robin test proxy', base: cluster.baseUrl, count: 1000 },
            ];
            try {
                for (const doc of documented) {
                    if (!doc.binary) {
                        if (skipWithout(doc.binary, doc.pkg) === false) {
                            t.fail(`${doc.lang} is not installed`);
                        } else {
                            t.comment(`the ${doc.name} set-up is not tried: no ${doc.lang} binary`);
                        }
                        continue;
                    }
                    const port = await freePort();
                    const base = `http://127.0.0.1:${port}`;
                    const proxy = await doc.run(filledIn(doc.lang, doc.publicLine(port)), `${base}/name`);
                    proxies.push({ name: `the documented ${doc.name} set-up`, base, count: 400, proxy });
                    const seen = new Set<string>();
                    for (let i = 0; i < 4; i++) {
                        const res = await fetch(`${base}/v1/command/getCurrentInstance`, { headers: ADMIN });
                        seen.add(String(((await res.json()) as { result: string }).result));
                    }
                    t.same(
                        [...seen].sort(),
                        ['rest-api.0', 'rest-api.1'],
                        `${doc.name}: requests reach both instances`,
                    );
                }
                let killed: Promise<void> | undefined;
                const kill = (): void => void (killed ??= cluster.nodes[1].kill());
                const results = await Promise.all(proxies.map(p => reads(p.base, p.count, kill)));
                for (const [i, statuses] of results.entries()) {
                    t.equal(statuses.length, proxies[i].count);
                    t.same(
                        statuses.filter(s => s !== 200),
                        [],
                        `${proxies[i].name}: retried what the dead instance did not answer`,
                    );
                }
                await killed;
                await cluster.nodes[1].start();
            } finally {
                await Promise.all(proxies.map(p => p.proxy?.stop()));
            }
        },
    );
}
