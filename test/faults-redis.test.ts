/*
 * The storage-drop checks of faults.test.ts on the Redis variant: both databases in a redis-server
 * that is stopped and started again while the adapter runs.
 */
import t from 'tap';
import { startIobroker, type IobFixture } from './support/iobroker';
import { hasRedis, startRedis, type RedisServer } from './support/redis';
import { storageDropTest } from './support/storage-drop';

if (!hasRedis() && !process.env.CI) {
    t.test('storage drop on Redis', { skip: 'redis-server is not installed (apt-get install redis-server); CI installs it' }, async () => undefined);
} else {
    let redis: RedisServer;
    let iob: IobFixture;
    t.before(async () => {
        redis = await startRedis();
        iob = await startIobroker({ redisPort: redis.port, native: { hookRetryMs: 100, hookMaxFailures: 50, checkInterval: 0 } });
        await iob.createState('0_userdata.0.r1', { type: 'number' }, 0);
    });
    t.teardown(async () => {
        await iob?.stop();
        await redis?.close();
    });

    t.test('Redis stops and returns: 503 with Retry-After meanwhile, then subscriptions work again and nothing is lost', t =>
        storageDropTest(t, iob, '0_userdata.0.r1', ms => redis.bounce(ms), val =>
            iob.storage.states.setStateAsync('0_userdata.0.r1', { val, ack: true, from: 'system.adapter.other.0' }),
        ),
    );
}
