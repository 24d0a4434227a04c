/** The store's public surface: composition roots (the console, the CLI) import from here. */
export { openStore, Store as SqliteStore, type ModelPayload, type PurgeOptions, type PurgeResult, type RunQuery, type StoreOptions } from './store';
export type { Store } from './store-api';
export { DATABASE_URL_ENV, openPgStore, PgStore, safeDatabaseUrl, type PgStoreOptions } from './pg-store';
export { officeDatabaseUrl, openConfiguredStore, type StoreLocation } from './configured';
export { PgRouteStore } from './pg-route-store';
export { openRouteStore, RouteStoreError, SqliteRouteStore } from './route-store';
export { routesOf } from './store-routes';
export { defaultDbPath, DB_FILE_NAME } from './location';
export { StoreOpenError } from './database';
export { CANNOT_PROVE, CHAIN_DEFINITION, genesisHash, stepHash, type BreakPlace, type RunIdentity, type VerifyResult } from './chain';
export { anchorHead, CHAIN_V2_COVERS, CHAIN_V2_DEFINITION, eventChainJson, eventHash, genesisRecord, type ChainRecordRef } from './chain-v2';
export {
  verifyExport,
  RunExportFormatError,
  RUN_EXPORT_FORMAT,
  RUN_EXPORT_VERSION,
  type RunExport,
  type RunExportV1,
  type RunExportV2,
  type VerifyExportOptions,
} from './run-export';
export { SecretRefusedError } from './secret-guard';
export { LATEST_SCHEMA_VERSION, SchemaTooNewError } from './migrations';
export type { ApprovalEntry, RunEvent, RunEventType } from './records';
