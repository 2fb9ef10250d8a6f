import type { Config } from '../instance/config';
import type { Route } from '../routing/route';
import { listFolderRoute, listTopFolderRoute } from './dir';
import { docsRoutes } from './docs';
import { deviceSubscribeRoutes } from './device-subscribe';
import { listDevicesRoute, listFunctionsRoute, listRoomsRoute, readDeviceRoute, writeDeviceRoute } from './devices';
import { listEnumsRoute, readEnumRoute } from './enum';
import { eventStreamRoute } from './events';
import { deleteFileRoute, readFileRoute, writeFileRoute } from './file';
import { addHistoryRoute, getHistoryRoute, postAddHistoryRoute, postHistoryRoute } from './history';
import { historySeriesRoute, postHistorySeriesRoute } from './history-series';
import { listLogsRoute, readLogRoute } from './log';
import { queryStatesRoute, writeStatesRoute } from './bulk';
import { faviconRoute, nameRoute } from './meta';
import { metricsRoute } from './metrics';
import { webhookRoutes } from './webhooks';
import { tokenRoutes } from './tokens';
import { oauthRoutes } from './oauth';
import { pollingRoute } from './polling';
import { createObjectRoute, deleteObjectRoute, getObjectRoute, listObjectsRoute, updateObjectRoute } from './object';
import { sendToGetRoute, sendToPostRoute } from './sendto';
import { listStates, plainState, readState, toggleStateRoute, updateState } from './state';
import { subscribeRoutes } from './subscribe';

/** Every REST route, listed explicitly: these URLs are public API. */
export function restRoutes(config: Config): Route[] {
    return [
        ...(config.noUI ? [] : docsRoutes(config)),
        ...(config.auth ? oauthRoutes : []),
        nameRoute,
        faviconRoute,
        metricsRoute(config),
        ...(config.inboundWebhooks ? webhookRoutes : []),
        ...(config.auth && config.apiTokens ? tokenRoutes : []),
        readState,
        updateState,
        toggleStateRoute,
        plainState,
        listStates,
        writeStatesRoute,
        queryStatesRoute,
        pollingRoute,
        ...subscribeRoutes,
        getObjectRoute,
        createObjectRoute,
        updateObjectRoute,
        deleteObjectRoute,
        listObjectsRoute,
        listEnumsRoute,
        readEnumRoute,
        listDevicesRoute,
        readDeviceRoute,
        writeDeviceRoute,
        listRoomsRoute,
        listFunctionsRoute,
        ...deviceSubscribeRoutes,
        postHistoryRoute,
        historySeriesRoute,
        postHistorySeriesRoute,
        getHistoryRoute,
        postAddHistoryRoute,
        addHistoryRoute,
        sendToGetRoute,
        sendToPostRoute,
        readFileRoute,
        writeFileRoute,
        deleteFileRoute,
        listTopFolderRoute,
        listFolderRoute,
        listLogsRoute,
        readLogRoute,
        eventStreamRoute,
    ];
}
