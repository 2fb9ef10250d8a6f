import type { RequestContext } from '../request-context';
import { adapterCall } from './adapter-errors';

/** js-controller's own per-state ACL check, the one get/setForeignState run; no public method exposes it. */
interface StateAclCheck {
    _checkStates(id: string, options: Record<string, unknown>, command: 'getState' | 'setState'): Promise<unknown>;
}

/** Throws 403 `permissionError` unless the caller may read (`getState`) or write (`setState`) the state. */
export async function assertStateAccess(ctx: RequestContext, id: string, command: 'getState' | 'setState'): Promise<void> {
    const checker = ctx.adapter as unknown as Partial<StateAclCheck>;
    if (typeof checker._checkStates !== 'function') {
        // another controller version: reading the state with the caller's rights checks at least read access
        await adapterCall(ctx.adapter.getForeignStateAsync(id, ctx.callOptions), { id });
        return;
    }
    // a copy: js-controller adds the caller's groups and ACL to the options it is given
    await adapterCall(checker._checkStates(id, { ...ctx.callOptions }, command), { id });
}
