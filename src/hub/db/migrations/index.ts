// The hub's migrations, in order: the only registry (docs/team-mode.md §4). One set for both
// backends (PGlite and PostgreSQL ≥ 15: the same SQL dialect). Versions step by 10.
import type { HubDb } from '../schema';
import { migrate0010 } from './0010-accounts';
import { migrate0011 } from './0011-submissions';
import { migrate0012 } from './0012-sessions';
import { migrate0013 } from './0013-tasks';
import { migrate0014 } from './0014-intake-builds';
import { migrate0016 } from './0016-version-stats';
import { migrate0017 } from './0017-qa-sampling';
import { migrate0018 } from './0018-submission-facts';

/** One schema step. */
export type HubMigration = {
  version: number;
  /** What it does, for the log. */
  name: string;
  migrate: (db: HubDb) => Promise<void>;
};

/** Every hub migration, oldest first. */
export const HUB_MIGRATIONS: readonly HubMigration[] = [
  { version: 10, name: 'accounts', migrate: migrate0010 },
  { version: 11, name: 'submissions', migrate: migrate0011 },
  { version: 12, name: 'sessions', migrate: migrate0012 },
  { version: 13, name: 'tasks', migrate: migrate0013 },
  { version: 14, name: 'intake and dataset builds', migrate: migrate0014 },
  { version: 16, name: 'version stats', migrate: migrate0016 },
  { version: 17, name: 'QA sampling', migrate: migrate0017 },
  { version: 18, name: 'dashboard facts', migrate: migrate0018 },
];
