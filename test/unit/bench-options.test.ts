/*
 * The bench's command line for the load-test recipe: `--only polling [--url] [--sessions] [--rounds]`.
 */
import t from 'tap';
import { parseBenchOptions, UsageError } from '../../bench/options';

t.test('the polling rounds against any instance', async t => {
    const options = parseBenchOptions([
        '--only',
        'polling',
        '--url',
        'http://user:pass@192.168.1.5:8093',
        '--sessions',
        '500',
        '--rounds',
        '4',
    ]);
    t.equal(options.only, 'polling');
    t.equal(options.url, 'http://user:pass@192.168.1.5:8093');
    t.equal(options.sessions, 500);
    t.equal(options.rounds, 4);
    t.equal(parseBenchOptions(['--only', 'polling']).sessions, undefined, "each part's own default");
});

/** True when the command line stops with the usage. */
function refused(args: string[]): boolean {
    try {
        parseBenchOptions(args);
        return false;
    } catch (err) {
        return err instanceof UsageError;
    }
}

t.test('a --url the rounds cannot use stops before anything starts', async t => {
    t.ok(refused(['--url', 'http://127.0.0.1:8093']), 'only with --only polling');
    t.ok(refused(['--only', 'http', '--url', 'http://127.0.0.1:8093']));
    t.ok(refused(['--only', 'polling', '--url', 'not a url']));
    t.ok(refused(['--only', 'polling', '--url', 'https://127.0.0.1:8093']), 'plain http only');
    t.ok(refused(['--only', 'polling', '--sessions', '0']));
});
