// Public surface of the store layer.
export { openDatabase } from './db';
export type { Db, OpenDatabaseOptions } from './db';
export { migrate, schemaVersion, LATEST_SCHEMA_VERSION } from './migrate';
export * from './queries/events';
export * from './queries/recordings';
export * from './queries/steps';
export * from './queries/context';
export * from './queries/edits';
export * from './queries/labels';
export * from './queries/reviews';
export * from './queries/keyframes';
export * from './queries/library-page';
export * from './queries/recording-fields';
export * from './queries/settings';
export { withBusyTimeout, DEFAULT_BUSY_TIMEOUT_MS } from './db';
export type { MigrateOptions, MigrateOutcome } from './migrate';
export { checkDatabaseIntegrity, readDatabaseVersion } from './health';
export type { IntegrityReport, IntegrityOptions, DatabaseVersion } from './health';
