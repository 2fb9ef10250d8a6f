import t from 'tap';
import { BruteForceGuard, lockDuration } from '../../src/auth/brute-force';

t.test('the lock grows with the failures and ends by itself', async t => {
    let now = 1_000_000;
    const guard = new BruteForceGuard(() => now);
    t.equal(lockDuration(4), 0);
    t.equal(lockDuration(5), 60_000);
    t.equal(lockDuration(9), 180_000);
    t.equal(lockDuration(14), 600_000);
    t.equal(lockDuration(20), 3_600_000);
    for (let i = 0; i < 5; i++) {
        guard.failed('10.0.0.1', 'admin');
    }
    t.throws(() => guard.assertAllowed('10.0.0.1', 'admin'), { message: /Too many failed logins/ });
    t.doesNotThrow(() => guard.assertAllowed('10.0.0.2', 'admin'), 'another address may still try this user');
    t.doesNotThrow(() => guard.assertAllowed('10.0.0.1', 'bob'), 'five failures do not lock an address for other users');
    now += 61_000;
    t.doesNotThrow(() => guard.assertAllowed('10.0.0.1', 'admin'), 'the lock expires');
    guard.failed('10.0.0.1', 'admin');
    t.throws(() => guard.assertAllowed('10.0.0.1', 'admin'), 'the next failure locks again');
    guard.succeeded('10.0.0.2', 'admin');
    t.throws(() => guard.assertAllowed('10.0.0.1', 'admin'), 'the owner logging in elsewhere does not unlock the guesser');
    guard.succeeded('10.0.0.1', 'admin');
    t.doesNotThrow(() => guard.assertAllowed('10.0.0.1', 'admin'), 'a success from the address itself does');
});

t.test('an address guessing many user names is locked too', async t => {
    const guard = new BruteForceGuard(() => 5_000);
    for (let i = 0; i < 10; i++) {
        guard.failed('10.0.0.9', `user${i}`);
    }
    t.throws(() => guard.assertAllowed('10.0.0.9', 'fresh'));
});
