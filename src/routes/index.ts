import type { Config } from '../config';
import type { Route } from '../route';
import { docsRoutes } from './docs';
import { faviconRoute, nameRoute } from './meta';
import { createObjectRoute, deleteObjectRoute, getObjectRoute, listObjectsRoute, updateObjectRoute } from './object';
import { listStates, plainState, readState, toggleStateRoute, updateState } from './state';

/** Every REST route, listed explicitly: these URLs are public API. */
export function restRoutes(config: Config): Route[] {
    return [
        ...(config.noUI ? [] : docsRoutes),
        nameRoute,
        faviconRoute,
        readState,
        updateState,
        toggleStateRoute,
        plainState,
        listStates,
        getObjectRoute,
        createObjectRoute,
        updateObjectRoute,
        deleteObjectRoute,
        listObjectsRoute,
    ];
}
