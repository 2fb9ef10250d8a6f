/*
 * The scaling part's pure logic: the sizes on its command line, the open-file limit that decides
 * which sizes this machine can hold, the rotating order, and the targets read from the rounds.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import t from 'tap';
import { startBare } from '../../bench/http';
import { parseBenchOptions, UsageError } from '../../bench/options';
import { openFileLimit, rotated, scalingRow, scalingTargets, type Sample, type SizeResult } from '../../bench/scaling';

t.test('sizes on the command line', async t => {
    const defaults = parseBenchOptions(['--only', 'scaling']);
    t.same(defaults.scalePolls, [1000, 10_000, 50_000]);
    t.same(defaults.scaleStreams, [1000, 10_000]);
    const given = parseBenchOptions(['--only', 'scaling', '--scale-polls', '500,2000', '--scale-streams', '300']);
    t.same(given.scalePolls, [500, 2000]);
    t.same(given.scaleStreams, [300]);
    const refused = (args: string[]): boolean => {
        try {
            parseBenchOptions(args);
            return false;
        } catch (err) {
            return err instanceof UsageError;
        }
    };
    t.ok(refused(['--only', 'scaling', '--scale-polls', '1000,x']));
    t.ok(refused(['--only', 'scaling', '--scale-streams', '0']));
    t.notOk(refused(['--only', 'scaling', '--scale-streams', '10']));
});

t.test('the open-file limit from /proc/self/limits', async t => {
    const limits = (value: string): string => `Limit                     Soft Limit           Hard Limit           Units\nMax processes             unlimited            unlimited            processes\nMax open files            ${value}                20000                files\n`;
    t.equal(openFileLimit(limits('20000')), 20_000);
    t.equal(openFileLimit(limits('unlimited')), Infinity);
    t.equal(openFileLimit('nothing of the kind'), Infinity, 'unknown: no size is skipped');
    t.ok(openFileLimit() > 0, 'this process has one');
});

t.test('who goes first rotates', async t => {
    t.same(rotated(['ours', '4.0.2', 'bare'], 0), ['ours', '4.0.2', 'bare']);
    t.same(rotated(['ours', '4.0.2', 'bare'], 1), ['4.0.2', 'bare', 'ours']);
    t.same(rotated(['ours', '4.0.2', 'bare'], 2), ['bare', 'ours', '4.0.2']);
    t.same(rotated(['ours', 'bare'], 3), ['bare', 'ours']);
});

const s = (p99Ms: number, kbPerConnection = 10, lost = 0): Sample => ({ p50Ms: p99Ms / 2, p99Ms, lost, kbPerConnection });

t.test('targets from the rounds: medians, every round ahead, RSS per poll', async t => {
    const polls: SizeResult = {
        kind: 'polls',
        size: 10_000,
        rounds: [
            { ours: s(100, 8), '4.0.2': s(150, 12), bare: s(95, 4) },
            { ours: s(110, 9), '4.0.2': s(140, 12), bare: s(100, 4) },
            { ours: s(300, 8), '4.0.2': s(200, 12), bare: s(105, 4) },
        ],
    };
    const rows = scalingTargets([polls], '4.0.2');
    const find = (start: string): { value: unknown; result: string } => rows.find(r => r.target.startsWith(start))!;
    t.equal(find('10000 polls: p99 ours/bare').value, 1.1, 'median 110 against median 100');
    t.equal(find('10000 polls: p99 ours/bare').result, 'pass');
    t.equal(find('10000 polls: p99 ahead').value, '2 of 3');
    t.equal(find('10000 polls: p99 ahead').result, 'FAIL', 'one round behind fails');
    t.equal(find('10000 polls: RSS').value, 0.67);
    t.equal(find('10000 polls: RSS').result, 'pass');
    const row = scalingRow(polls, '4.0.2');
    t.equal(row['rounds ahead of release'], '2 of 3');
    t.equal(row['KB per connection ours/bare/release'], '8 / 4 / 12');

    const lost: SizeResult = { kind: 'polls', size: 1000, rounds: [{ ours: s(10, 1, 3), '4.0.2': s(20), bare: s(10) }] };
    const lostRows = scalingTargets([lost], '4.0.2');
    t.equal(lostRows[0].result, 'FAIL', 'lost answers fail whatever the ratio');
    t.notOk(lostRows.some(r => r.target.includes('ahead')), 'ahead of the release is a target from 10,000 on');

    const streams: SizeResult = { kind: 'streams', size: 1000, rounds: [{ ours: s(12), bare: s(10) }] };
    const streamRows = scalingTargets([streams], '4.0.2');
    t.same(
        streamRows.map(r => [r.target, r.result]),
        [['1000 streams: p99 ours/bare', 'FAIL']],
        'streams: only against the bare server (the release has none)',
    );
    const noRelease = scalingTargets([polls]);
    t.equal(noRelease.find(r => r.target.includes('ahead'))!.result, 'n/a', 'without the release: not measured, never a pass');
});

t.test('--profile: the bare server writes its CPU profile when stopped', async t => {
    const dir = mkdtempSync(join(tmpdir(), 'bare-profile-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const bare = await startBare(undefined, dir);
    t.equal((await fetch(`${bare.baseUrl}/`)).status, 200);
    bare.stop();
    // Node writes the profile while the process exits
    let files: string[] = [];
    for (let i = 0; i < 100 && !files.length; i++) {
        await delay(50);
        files = readdirSync(dir).filter(name => /^bare-server-\d+\.cpuprofile$/.test(name));
    }
    t.equal(files.length, 1, 'one profile, named for the bare server');
    const profile = JSON.parse(readFileSync(join(dir, files[0]), 'utf8')) as { nodes: Array<{ callFrame: { url: string } }> };
    t.ok(profile.nodes.some(node => node.callFrame.url.endsWith('bare-server.js')), 'of the bare server');
});
