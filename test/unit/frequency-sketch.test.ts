/* The frequency sketch behind the read cache's admission (pure logic). */
import t from 'tap';
import { FrequencySketch } from '../../src/storage/cache/frequency-sketch';

t.test('counts rank ids by how often they were asked for, and never count too low', async t => {
    const sketch = new FrequencySketch(2000);
    for (let i = 0; i < 2000; i++) {
        for (let n = 0; n < i % 5; n++) {
            sketch.increment(`id.${i}`);
        }
    }
    let tooLow = 0;
    let exact = 0;
    for (let i = 0; i < 2000; i++) {
        const f = sketch.frequency(`id.${i}`);
        tooLow += f < i % 5 ? 1 : 0;
        exact += f === i % 5 ? 1 : 0;
    }
    t.equal(tooLow, 0, 'never below the true count');
    t.ok(exact > 1900, `${exact} of 2000 exact`);
    t.equal(sketch.frequency('never.asked'), 0);
});

t.test('counters stop at 15 and halve after 10 x capacity counts, so old popularity fades', async t => {
    const sketch = new FrequencySketch(100);
    for (let n = 0; n < 40; n++) {
        sketch.increment('busy');
    }
    t.equal(sketch.frequency('busy'), 15, 'capped');
    for (let i = 0; i < 1000 - 40; i++) {
        sketch.increment(`other.${i}`);
    }
    t.ok(sketch.frequency('busy') <= 7, `halved: ${sketch.frequency('busy')}`);
    sketch.clear();
    t.equal(sketch.frequency('busy'), 0, 'cleared');
});
