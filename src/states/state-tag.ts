import { httpDate, keptValidator, shortHash, type Validator } from '../http/conditional';

/*
 * The version of a state, from its fields: ts and lc change on nearly every write, the short hash of
 * the other fields catches a write that keeps them (a `ts` given by the writer). No body is hashed.
 */

/** The ETag of a state's value, or of its absence (`null`: an object without a value). */
export function stateTag(state: Partial<ioBroker.State> | null | undefined): string {
    if (!state || state.ts === undefined) {
        return '"s-"';
    }
    const { val, ack, q, from, user, c, expire, ts, lc } = state;
    // the type is part of it: "1" and 1 are different answers
    const value = typeof val === 'object' && val !== null ? JSON.stringify(val) : String(val);
    const rest = shortHash(`${typeof val}:${value}|${ack}|${q}|${from}|${user}|${c}|${expire}`);
    return `"s${Number(ts).toString(36)}.${Number(lc).toString(36)}.${rest}"`;
}

/** ETag and Last-Modified (`ts`) of a state answer; made once per state object (the hot read path). */
export function stateValidator(state: Partial<ioBroker.State> | null | undefined): Validator {
    const make = (): Validator => {
        const lastModified = typeof state?.ts === 'number' ? state.ts : undefined;
        return { etag: stateTag(state), lastModified, lastModifiedText: httpDate(lastModified) };
    };
    return state ? keptValidator(state, make) : make();
}

/** A state's answer as `GET /v1/state/:id` sends it (`{...state, id}` as JSON) with its validator. */
export interface StateAnswer {
    id: string;
    text: string;
    validator: Validator;
}

const answers = new WeakMap<object, StateAnswer>();

/** Made once per state version, like its validator: repeated reads of an unchanged state serialise nothing. */
export function stateAnswer(id: string, state: ioBroker.State): StateAnswer {
    let answer = answers.get(state);
    if (answer?.id !== id) {
        answer = { id, text: JSON.stringify({ ...state, id }), validator: stateValidator(state) };
        answers.set(state, answer);
    }
    return answer;
}
