/*
 * A channel's replay buffer is bounded in bytes (256 KB): one event larger than that is sent to the
 * open streams but not held for replay, by any channel; a client resuming before it is told of an overflow.
 */
import t from 'tap';
import { SseChannel, OVERFLOW_FRAME } from '../../src/events/sse-channel';

const state = (val: string | number, ts = 1): ioBroker.State => ({
    val,
    ack: true,
    ts,
    lc: ts,
    from: 'system.adapter.test.0',
    q: 0,
});

t.test('a 20 MB value is not held by the channels that delivered it', async t => {
    const channels = Array.from({ length: 10 }, () => new SseChannel('system.user.bee', {} as never, 500));
    const val = 'x'.repeat(20 * 1024 * 1024);
    for (const channel of channels) {
        channel.deliver({ id: '0_userdata.0.big', state: state(val) });
    }
    const held = channels.reduce((sum, c) => sum + c.eventsAfter(0).reduce((s, e) => s + e.frame.length, 0), 0);
    t.ok(held <= 10 * 256 * 1024, `10 channels hold ${(held / 1024 / 1024).toFixed(1)} MB of frames for replay`);
});

t.test('an event too large to hold is reported as an overflow to a client resuming before it', async t => {
    const channel = new SseChannel('system.user.bee', {} as never, 500);
    const sent: string[] = [];
    channel.streams.add({ send: (frame: string) => sent.push(frame) } as never);
    channel.deliver({ id: '0_userdata.0.small', state: state(1, 1) });
    const before = idOf(sent[0]);
    channel.deliver({ id: '0_userdata.0.big', state: state('y'.repeat(300 * 1024), 2) });
    channel.deliver({ id: '0_userdata.0.small', state: state(3, 3) });
    t.equal(sent.length, 3, 'the open stream got all three, the large one too');
    t.ok(sent[1].length > 300 * 1024);
    const resume = channel.resume(before);
    t.same(resume.frames, [OVERFLOW_FRAME], 'the large event is missing from the replay: an overflow first');
    t.same(
        resume.held?.map(e => e.frame),
        [sent[2]],
        'then what the buffer still holds',
    );
    const after = channel.resume(idOf(sent[1]));
    t.same(after.frames, [], 'a client that saw the large one misses nothing');
    t.same(
        after.held?.map(e => e.frame),
        [sent[2]],
    );
});

function idOf(frame: string): string {
    return /^id: (.*)$/m.exec(frame)![1];
}
