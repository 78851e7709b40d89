// A PostgreSQL connection lost while Kysely holds it (checked out of the pool, between two
// queries of a transaction) must not kill the process: pg emits 'error' on the client, and a
// checked-out client has no listener of the pool's, so the event was unhandled and the process
// died (a `cua-annotator worker` died that way when PostgreSQL restarted mid-run,
// tests/hub/jobs/workers.test.ts). Real PostgreSQL 15; the backend is ended by
// pg_terminate_backend from a second connection.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHubDb } from '../../../src/hub/db';
import { startPostgres, type Postgres } from '../../helpers/postgres';

let server: Postgres;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('a hub connection ended by the server while checked out', () => {
  it('fails the transaction with the error; the process lives and the next query works', async () => {
    const url = await server.createDatabase();
    const hub = await openHubDb({ url });
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      let outcome = 'committed';
      try {
        await hub.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          // the connection is checked out and idle here when the server closes it
          await new Promise((r) => setTimeout(r, 500));
          await sql`SELECT 1`.execute(trx);
        });
      } catch (e) {
        outcome = e instanceof Error ? e.message : String(e);
      }
      expect(outcome).not.toBe('committed');
      expect(outcome).toMatch(/terminat|Connection|closed/i);
      expect(uncaught).toEqual([]);
      // the pool has dropped the broken client: the next query gets a new one
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(hub.db);
      expect(rows[0]!.one).toBe(1);
    } finally {
      process.off('uncaughtException', onUncaught);
      await admin.end();
      await hub.close();
    }
  }, 60_000);
});
