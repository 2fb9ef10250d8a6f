/*
 * Review: memory a channel's replay buffer holds for one huge event. The buffer is bounded to 256 KB
 * "besides the count", but keeps its newest entry whatever its size; every channel that delivers the
 * value keeps its own frame (a string per channel), for 60 s after its last stream closed.
 */
import t from 'tap';
import { SseChannel } from '../../src/events/sse-channel';

t.test('a 20 MB value is not held in full by every channel that delivered it', async t => {
    const channels = Array.from({ length: 10 }, () => new SseChannel('system.user.bee', {} as never, 500));
    const val = 'x'.repeat(20 * 1024 * 1024);
    for (const channel of channels) {
        channel.deliver({ id: '0_userdata.0.big', state: { val, ack: true, ts: 1, lc: 1, from: 'x', q: 0 } });
    }
    const held = channels.reduce((sum, c) => sum + c.eventsAfter(0).reduce((s, e) => s + e.frame.length, 0), 0);
    t.ok(held <= 10 * 256 * 1024, `10 channels hold ${(held / 1024 / 1024).toFixed(0)} MB of frames for replay`);
});
