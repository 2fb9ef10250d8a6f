import type { AppServices } from './app-services';
import { warnOnFailure } from '../instance/warn-on-failure';

/*
 * What the standalone process (src/main.ts) and the web extension (src/extension.ts) both do around
 * their services, so the two hosts cannot drift apart.
 */

/** Restores URL hooks (first: clients expect them live soon after the port answers), starts their checks, watches accounts. */
export async function startEvents(services: AppServices): Promise<void> {
    await services.startSharing();
    (await services.events.hooks.restore()).forEach(problem => services.storage.log.warn(problem));
    services.events.hooks.startChecks(services.meta.config.checkInterval);
    // group and user changes must reach the ACL and credential caches
    await services.storage.subscribeForeignObjectsAsync('system.group.*');
    await services.storage.subscribeForeignObjectsAsync('system.user.*');
    if (services.meta.config.apiTokens) {
        // users deleted while no instance ran: their tokens go before anyone could reuse the name
        await services.auth.tokens
            .sweep()
            .catch(warnOnFailure(services.storage.log, 'Deleting the API tokens of deleted users'));
    }
}

/** Hands a change js-controller notified to the caches and event subscribers. */
export function forwardChange(
    services: AppServices,
    kind: 'state' | 'object',
    id: string,
    value: ioBroker.State | ioBroker.Object | null | undefined,
): void {
    if (kind === 'object' && (id.startsWith('system.group.') || id.startsWith('system.user.'))) {
        services.auth.acls.invalidate();
        services.auth.credentials.invalidate();
        if (!value && id.startsWith('system.user.')) {
            // a deleted user's tokens go with it (every instance tries; a second delete finds nothing)
            void services.auth.tokens
                .revokeUser(id)
                .catch(warnOnFailure(services.storage.log, `Revoking the API tokens of ${id}`));
        }
    }
    services.events.feed.emit(kind, id, value);
}

/** Pending polls, hooks and event streams hear `{disconnect:true}`. */
export async function closeEvents(services: AppServices): Promise<void> {
    const log = services.storage.log;
    await services.events.polling.close().catch(warnOnFailure(log, 'Closing the polling sessions'));
    await services.events.hooks.close().catch(warnOnFailure(log, 'Closing the URL hooks'));
    await services.events.sse.close().catch(warnOnFailure(log, 'Closing the event streams'));
}
