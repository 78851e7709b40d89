// Public surface of the store layer.
export { openDatabase } from './db';
export type { Db, OpenDatabaseOptions } from './db';
export { migrate, schemaVersion, LATEST_SCHEMA_VERSION } from './migrate';
export * from './queries/events';
export * from './queries/recordings';
export * from './queries/steps';
export * from './queries/context';
