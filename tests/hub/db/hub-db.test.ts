// The hub database on both backends with one test body: embedded PGlite (one per file: its first
// open costs seconds and ~0.5 GB) and Debian's PostgreSQL 15 (tests/helpers/postgres.ts, a fresh
// database per test). Migrations (fresh, re-open, a newer build's database refused), accounts and
// their audit, tokens (revoked → refused at once; never stored in clear, searched in rows and in
// the database's own files).
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addUser,
  listUsers,
  localActor,
  removeUser,
  resetPassword,
  setRoles,
} from '../../../src/hub/accounts/accounts';
import { verifyPassword } from '../../../src/hub/auth/passwords';
import {
  createApiToken,
  revokeApiToken,
  tokenSha256,
  verifyApiToken,
} from '../../../src/hub/auth/tokens';
import {
  countActiveAdmins,
  findUserByName,
  HUB_MIGRATIONS,
  hubSchemaVersion,
  listAudit,
  listUserTokens,
  migrateHubDb,
  openHubDb,
  type HubDatabase,
  type HubDbTarget,
} from '../../../src/hub/db';
import { startPostgres, type Postgres } from '../../helpers/postgres';

const LATEST = HUB_MIGRATIONS.at(-1)!.version;
// every table of every migration (10 accounts, 11 submissions and reviews, 12 sessions, 13 tasks,
// 14 intake and dataset builds, 16 version stats, 17 QA sampling, 18 dashboard facts)
const HUB_TABLES = [
  'action_kinds',
  'api_tokens',
  'audit_log',
  'dataset_build_items',
  'dataset_builds',
  'hub_schema',
  'hub_sessions',
  'hub_settings',
  'qa_reviews',
  'review_leases',
  'submission_facts',
  'submission_versions',
  'submissions',
  'task_claims',
  'task_reports',
  'tasks',
  'user_roles',
  'users',
  'verdict_facts',
  'verdicts',
  'version_stats',
];
const by = localActor('cli');

type Backend = {
  name: string;
  /** A target for a test: the shared PGlite folder, or a new PostgreSQL database. */
  target: () => Promise<HubDbTarget>;
  /** Folders holding the database's own files (searched for secrets). */
  files: () => string;
};

let pgServer: Postgres;
let pgliteDir: string;
// the one PGlite of this file, reopened only by the tests that test reopening
let shared: HubDatabase | null = null;

beforeAll(async () => {
  [pgServer, pgliteDir] = await Promise.all([
    startPostgres(),
    mkdtemp(path.join(os.tmpdir(), 'hub-db-')),
  ]);
}, 120_000);
afterAll(async () => {
  await shared?.close();
  await pgServer?.stop();
  await rm(pgliteDir, { recursive: true, force: true });
});

const BACKENDS: Backend[] = [
  {
    name: 'PGlite (embedded)',
    target: () => Promise.resolve({ data: pgliteDir }),
    files: () => pgliteDir,
  },
  {
    name: 'PostgreSQL 15',
    target: async () => ({ url: await pgServer.createDatabase() }),
    files: () => pgServer.dir,
  },
];

// opens the backend's database for a test; PGlite's stays open for the next test
async function open(backend: Backend): Promise<{ hub: HubDatabase; done: () => Promise<void> }> {
  if (backend.name.startsWith('PGlite')) {
    shared ??= await openHubDb(await backend.target());
    return { hub: shared, done: () => Promise.resolve() };
  }
  const hub = await openHubDb(await backend.target());
  return { hub, done: () => hub.close() };
}

let names = 0;
const uniqueName = (base: string) => `${base}${++names}`;

async function tableNames(hub: HubDatabase): Promise<string[]> {
  const res = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' ORDER BY table_name`.execute(hub.db);
  return res.rows.map((r) => r.name);
}

async function filesContaining(root: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const bytes = Buffer.from(needle, 'utf8');
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(p);
      } else if (entry.isFile() && (await stat(p)).size < 64 * 1024 * 1024) {
        if ((await readFile(p)).includes(bytes)) {
          hits.push(p);
        }
      }
    }
  };
  await walk(root);
  return hits;
}

describe.each(BACKENDS)('hub database on $name', (backend) => {
  it('migrates a fresh database: the tables, the version row, bigint ids and counts as numbers', async () => {
    const { hub, done } = await open(backend);
    try {
      expect(hub.migration).toEqual({
        from: 0,
        to: LATEST,
        applied: HUB_MIGRATIONS.map((m) => m.version),
      });
      expect(await tableNames(hub)).toEqual(HUB_TABLES);
      expect(await hubSchemaVersion(hub.db)).toBe(LATEST);
      const added = await addUser(hub.db, { name: uniqueName('ann'), roles: ['annotator'], by });
      const row = await findUserByName(hub.db, added.user);
      expect(typeof row!.id).toBe('number');
      expect(row!.created_at).toBeInstanceOf(Date);
      const n = await countActiveAdmins(hub.db);
      expect(typeof n).toBe('number');
      // migrating again (another process opening it) changes nothing
      expect(await migrateHubDb(hub.db)).toEqual({ from: LATEST, to: LATEST, applied: [] });
    } finally {
      await done();
    }
  });

  it('re-open applies nothing and keeps the rows; a database of a newer build is refused (DB_FROM_FUTURE) and left as it was', async () => {
    const target = await backend.target();
    if ('data' in target) {
      await shared?.close();
      shared = null;
    }
    const first = await openHubDb(target);
    const name = uniqueName('kept');
    await addUser(first.db, { name, roles: ['reviewer'], by });
    await first.close();

    const again = await openHubDb(target);
    expect(again.migration.applied).toEqual([]);
    expect((await listUsers(again.db)).map((u) => u.name)).toContain(name);
    // this database's version is newer than a build with fewer migrations knows
    await expect(migrateHubDb(again.db, HUB_MIGRATIONS.slice(0, -1))).rejects.toMatchObject({
      code: 'DB_FROM_FUTURE',
      fix: expect.stringMatching(/newer cua-annotator/),
    });
    await again.close();

    // an older build opening it: refused, and the data-folder lock is released again
    await expect(openHubDb(target, { migrations: [] })).rejects.toMatchObject({
      code: 'DB_FROM_FUTURE',
      details: { version: LATEST, latest: 0 },
    });
    const last = await openHubDb(target);
    expect(await hubSchemaVersion(last.db)).toBe(LATEST);
    expect((await listUsers(last.db)).map((u) => u.name)).toContain(name);
    if ('data' in target) {
      shared = last;
    } else {
      await last.close();
    }
  });

  it('accounts: add (argon2id, one-time password), roles, remove; every change audited; the last admin kept; names stay reserved', async () => {
    const { hub, done } = await open(backend);
    try {
      const admin = uniqueName('admin');
      const added = await addUser(hub.db, { name: admin, roles: ['admin', 'reviewer'], by });
      expect(added).toEqual({
        user: admin,
        roles: ['reviewer', 'admin'],
        password: expect.any(String),
      });
      const row = await findUserByName(hub.db, admin);
      expect(row!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await verifyPassword(row!.password_hash, added.password)).toBe(true);
      expect(row!.must_change_password).toBe(true);

      await expect(
        addUser(hub.db, { name: admin, roles: ['annotator'], by }),
      ).rejects.toMatchObject({
        code: 'HUB_USER_EXISTS',
      });
      await expect(
        addUser(hub.db, { name: 'Bad Name', roles: ['annotator'], by }),
      ).rejects.toMatchObject({
        code: 'INVALID_PAYLOAD',
      });
      await expect(
        addUser(hub.db, { name: uniqueName('x'), roles: ['owner'], by }),
      ).rejects.toMatchObject({
        code: 'INVALID_PAYLOAD',
      });

      // on PostgreSQL this database is new: the admin is the last one
      const admins = await countActiveAdmins(hub.db);
      if (admins === 1) {
        await expect(removeUser(hub.db, { name: admin, by })).rejects.toMatchObject({
          code: 'HUB_LAST_ADMIN',
        });
        await expect(
          setRoles(hub.db, { name: admin, roles: ['reviewer'], by }),
        ).rejects.toMatchObject({
          code: 'HUB_LAST_ADMIN',
        });
      }
      // a lost one-time password: a new one replaces it
      const reset = await resetPassword(hub.db, { name: admin, by });
      const resetHash = (await findUserByName(hub.db, admin))!.password_hash;
      expect(await verifyPassword(resetHash, reset.password)).toBe(true);
      expect(await verifyPassword(resetHash, added.password)).toBe(false);

      const other = uniqueName('lead');
      await addUser(hub.db, { name: other, roles: ['annotator'], by });
      expect(
        await setRoles(hub.db, { name: other, roles: ['admin', 'annotator'], by }),
      ).toMatchObject({
        roles: ['annotator', 'admin'],
        before: ['annotator'],
      });
      await setRoles(hub.db, { name: admin, roles: ['reviewer'], by });
      expect(await removeUser(hub.db, { name: admin, by })).toEqual({
        user: admin,
        tokensRevoked: 0,
      });
      expect((await listUsers(hub.db)).map((u) => u.name)).not.toContain(admin);
      const all = await listUsers(hub.db, { includeRemoved: true });
      expect(all.find((u) => u.name === admin)).toMatchObject({ disabledAtMs: expect.any(Number) });
      await expect(
        addUser(hub.db, { name: admin, roles: ['annotator'], by }),
      ).rejects.toMatchObject({
        code: 'HUB_USER_EXISTS',
        message: expect.stringContaining('removed'),
      });
      await expect(removeUser(hub.db, { name: admin, by })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });

      const audit = (await listAudit(hub.db, { limit: 1000 })).filter(
        (a) => a.target === `user:${admin}`,
      );
      expect(audit.map((a) => a.action).reverse()).toEqual([
        'user.add',
        'user.password',
        'user.roles',
        'user.remove',
      ]);
      for (const entry of audit) {
        expect(entry).toMatchObject({ actor: by.actor, client: 'cli', actorUserId: null });
        expect(Date.now() - entry.atMs).toBeLessThan(120_000);
      }
      expect(audit.at(-1)!.details).toEqual({ roles: ['reviewer', 'admin'] });
      expect(JSON.stringify(audit)).not.toContain(added.password);
      expect(JSON.stringify(audit)).not.toContain(reset.password);
    } finally {
      await done();
    }
  });

  it('API tokens: verified while live; revoked or owner removed → UNAUTHORIZED at once; never stored in clear (rows and files searched)', async () => {
    const { hub, done } = await open(backend);
    try {
      const name = uniqueName('tok');
      const added = await addUser(hub.db, { name, roles: ['annotator'], by });
      const user = (await findUserByName(hub.db, name))!;
      const { id, token } = await createApiToken(hub.db, {
        userId: user.id,
        userName: name,
        name: 'laptop',
        by,
      });
      expect(token).toMatch(/^cuah_[A-Za-z0-9_-]{43}$/);
      const ok = await verifyApiToken(hub.db, token);
      expect(ok).toMatchObject({ tokenId: id, user: { name, roles: ['annotator'] } });
      expect((await listUserTokens(hub.db, user.id))[0]).toMatchObject({
        id,
        name: 'laptop',
        lastUsedAtMs: expect.any(Number),
        revokedAtMs: null,
      });
      await expect(
        verifyApiToken(hub.db, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`),
      ).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });

      // the token and the one-time password are nowhere in the rows; their hashes are
      const rows: string[] = [];
      for (const table of HUB_TABLES) {
        const res = await sql<{
          j: string;
        }>`SELECT row_to_json(t)::text AS j FROM ${sql.table(table)} t`.execute(hub.db);
        rows.push(...res.rows.map((r) => r.j));
      }
      const dump = rows.join('\n');
      expect(dump).toContain(tokenSha256(token));
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(token.slice(5));
      expect(dump).not.toContain(added.password);
      // ... nor in the database's own files (after a checkpoint writes the tables out)
      await sql`CHECKPOINT`.execute(hub.db);
      expect(await filesContaining(backend.files(), tokenSha256(token))).not.toEqual([]);
      expect(await filesContaining(backend.files(), token.slice(5))).toEqual([]);
      expect(await filesContaining(backend.files(), added.password)).toEqual([]);

      // revocation: the very next check refuses it
      expect(await revokeApiToken(hub.db, id, by)).toBe(true);
      await expect(verifyApiToken(hub.db, token)).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
        message: expect.stringContaining('revoked'),
      });
      expect(await revokeApiToken(hub.db, id, by)).toBe(false);

      // removing the account revokes its live tokens at once
      const second = await createApiToken(hub.db, {
        userId: user.id,
        userName: name,
        name: 'ci',
        by,
      });
      await verifyApiToken(hub.db, second.token);
      expect(await removeUser(hub.db, { name, by })).toEqual({ user: name, tokensRevoked: 1 });
      await expect(verifyApiToken(hub.db, second.token)).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });
      const actions = (await listAudit(hub.db, { limit: 1000 }))
        .filter((a) => a.action.startsWith('token.'))
        .map((a) => `${a.action} ${a.target}`);
      expect(actions).toEqual(
        expect.arrayContaining([`token.create token:${id}`, `token.revoke token:${id}`]),
      );
    } finally {
      await done();
    }
  });
});

describe('hub database on PostgreSQL: faults', () => {
  it('an unreachable server or a missing database: HUB_DB_UNREACHABLE with a fix; a bad URL: USAGE', async () => {
    await expect(
      openHubDb({ url: `postgres://postgres@127.0.0.1:${pgServer.port}/no_such_db` }),
    ).rejects.toMatchObject({
      code: 'HUB_DB_UNREACHABLE',
      message: expect.stringContaining('no_such_db'),
      fix: expect.stringContaining('createdb'),
    });
    await expect(openHubDb({ url: 'postgres://u:secret@127.0.0.1:1/x' })).rejects.toMatchObject({
      code: 'HUB_DB_UNREACHABLE',
      message: expect.not.stringContaining('secret'),
    });
    await expect(openHubDb({ url: 'mysql://x/y' })).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('two openers (two connection pools, as the hub and the CLI have) migrating one new database at once: each migration is applied by exactly one of them', async () => {
    const url = await pgServer.createDatabase();
    const [a, b] = await Promise.all([openHubDb({ url }), openHubDb({ url })]);
    try {
      // each migration takes the lock in its own transaction, so the two may share the work
      // (seen with five migrations: one applied 10-13, the other 14); none is applied twice
      expect([...a.migration.applied, ...b.migration.applied].sort((x, y) => x - y)).toEqual(
        HUB_MIGRATIONS.map((m) => m.version),
      );
      expect(await hubSchemaVersion(a.db)).toBe(LATEST);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
