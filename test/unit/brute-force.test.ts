import t from 'tap';
import { BruteForceGuard, lockDuration, networkOf, userKey } from '../../src/auth/brute-force';

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
    t.throws(() => guard.assertAllowed('10.0.0.2', 'admin'), 'a fresh address is held too: the name is damped across addresses');
    t.doesNotThrow(() => guard.assertAllowed('10.0.0.1', 'bob'), 'five failures do not lock an address for other users');
    now += 61_000;
    t.doesNotThrow(() => guard.assertAllowed('10.0.0.1', 'admin'), 'the lock expires');
    t.doesNotThrow(() => guard.assertAllowed('10.0.0.2', 'admin'), 'for the fresh address too');
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

t.test('IPv6 guesses count per /64; IPv4-mapped addresses as IPv4', async t => {
    t.equal(networkOf('2001:db8::1'), '2001:db8:0:0::/64');
    t.equal(networkOf('2001:0db8:0000:0000:ffff:1:2:3'), '2001:db8:0:0::/64');
    t.equal(networkOf('2001:db8:0:1::1'), '2001:db8:0:1::/64');
    t.equal(networkOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
    t.equal(networkOf('::ffff:10.0.0.1'), '10.0.0.1');
    t.equal(networkOf('64:ff9b::10.0.0.1'), '64:ff9b:0:0::/64');
    t.equal(networkOf('10.0.0.1'), '10.0.0.1');
    const guard = new BruteForceGuard(() => 5_000);
    for (let i = 0; i < 10; i++) {
        // a rotating address inside one /64, a new user name each time (no name lock helps)
        guard.failed(`2001:db8::${(i + 1).toString(16)}`, `user${i}`);
    }
    t.throws(() => guard.assertAllowed('2001:db8::ffff', 'fresh'), { message: /Too many failed logins/ }, 'the whole /64 is locked');
    t.doesNotThrow(() => guard.assertAllowed('2001:db8:0:1::1', 'fresh'), 'the next /64 is not');
    guard.failed('::ffff:10.1.1.1', 'a');
    guard.failed('10.1.1.1', 'b');
    for (let i = 0; i < 8; i++) {
        guard.failed('10.1.1.1', `c${i}`);
    }
    t.throws(() => guard.assertAllowed('::ffff:10.1.1.1', 'fresh'), 'a mapped address is its IPv4 address');
});

t.test('a user name is damped across addresses, briefly for addresses that never failed, not where the owner logged in', async t => {
    let now = 1_000_000;
    const guard = new BruteForceGuard(() => now);
    guard.succeeded('192.168.1.10', 'admin');
    for (let i = 1; i <= 4; i++) {
        guard.failed(`203.0.113.${i}`, 'admin');
    }
    t.doesNotThrow(() => guard.assertAllowed('203.0.113.50', 'admin'), 'four failures lock nothing');
    guard.failed('203.0.113.5', 'admin');
    t.throws(() => guard.assertAllowed('203.0.113.50', 'admin'), 'the fifth, from a fifth address, damps every new one');
    t.doesNotThrow(() => guard.assertAllowed('192.168.1.10', 'admin'), 'where the owner logged in before, the owner is not held up');
    t.doesNotThrow(() => guard.assertAllowed('203.0.113.50', 'bob'), 'another name is not');
    for (let i = 6; i <= 20; i++) {
        guard.failed(`203.0.113.${i}`, 'admin');
    }
    t.throws(() => guard.assertAllowed('203.0.113.1', 'admin'), 'an address that failed for the name keeps its lock');
    now += 61_000;
    t.doesNotThrow(() => guard.assertAllowed('198.51.100.1', 'admin'), 'a new address waits a minute at most, however many failures');
    t.throws(() => guard.assertAllowed('203.0.113.1', 'admin'), 'the guessing addresses wait the whole growing lock (60 min)');
    now += 58 * 60_000;
    t.throws(() => guard.assertAllowed('203.0.113.20', 'admin'), 'still locked before the hour is over');
    now += 2 * 60_000;
    t.doesNotThrow(() => guard.assertAllowed('203.0.113.20', 'admin'), 'and free after it');
});

t.test('spellings js-controller folds into one user id are one name', async t => {
    for (const name of ['admin', 'Admin', 'ADMIN', 'system.user.admin', 'system.user.Admin']) {
        t.equal(userKey(name), 'system.user.admin', name);
    }
    for (const name of ['my_user', 'my user', 'my.user', 'my*user', 'My**User']) {
        t.equal(userKey(name), 'system.user.my_user', name);
    }
});
