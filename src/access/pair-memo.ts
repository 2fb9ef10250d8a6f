/**
 * A value per pair of objects, made once and kept while both live (weakly held: nothing is kept
 * for a pair whose objects are gone).
 */
export function pairMemo<A extends object, B extends object, V>(): (a: A, b: B, make: (a: A, b: B) => V) => V {
    const firsts = new WeakMap<A, WeakMap<B, V>>();
    return (a, b, make) => {
        let seconds = firsts.get(a);
        if (!seconds) {
            seconds = new WeakMap();
            firsts.set(a, seconds);
        }
        let value = seconds.get(b);
        if (value === undefined) {
            value = make(a, b);
            seconds.set(b, value);
        }
        return value;
    };
}
