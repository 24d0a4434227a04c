/** The store's public surface: composition roots (the console, the CLI) import from here. */
export { openStore, SqliteStore } from './store';
export type { PurgeResult } from './run-store';
export type { Store } from './store-api';
export { DATABASE_URL_ENV, openPgStore, PgStore } from './pg-store';
export { resilientPool } from './pg-pool';
export { officeDatabaseUrl, openConfiguredStore } from './configured';
export { openRouteStore } from './route-store';
export { routesOf } from './store-routes';
export { requestMapsOf } from './request-map-store';
export { defaultDbPath } from './location';
export { StoreOpenError } from './database';
export { CHAIN_DEFINITION, genesisHash, stepHash, type VerifyResult } from './chain';
export { anchorHead, CHAIN_V2_DEFINITION, eventChainJson, eventHash, type ChainRecordRef } from './chain-v2';
export { verifyExport, RunExportFormatError, RUN_EXPORT_FORMAT, RUN_EXPORT_VERSION, type RunExport, type RunExportV2 } from './run-export';
export { SecretRefusedError } from './secret-guard';
export { LATEST_SCHEMA_VERSION } from './migrations';
