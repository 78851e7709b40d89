// Ordered list of schema migrations; append only, never edit a released one.
import type { Db } from '../db';
import { migration0001 } from './0001-initial';
import { migration0002 } from './0002-keyframes';
import { migration0003 } from './0003-uploads';
import { migration0004 } from './0004-display-origin';
import { migration0005 } from './0005-import-fingerprint';
import { migration0006 } from './0006-cot';

/** One schema migration. */
export type Migration = {
  /** 1-based version this migration produces. */
  version: number;
  name: string;
  up: (db: Db) => void;
};

/** All migrations, index i producing version i + 1. */
export const MIGRATIONS: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
];
