// Issue 27's fault items "database unreachable → coded error with a fix" and "the hub itself is
// down", end to end: a hub on a real PostgreSQL (tests/helpers/postgres.ts) with Swift's S3 as
// its store, an annotator and a reviewer as separate CLI processes. PostgreSQL stops while the
// hub runs: `submit`, `sync` and `review next` each exit 2 with HUB_DB_UNREACHABLE and its fix,
// the hub keeps running and the annotator's library keeps working. PostgreSQL starts again: the
// very next calls work without restarting the hub (its pool reconnects) — the submit registers
// version 1 and the reviewer takes it (and asks for changes). Then the hub process itself stops:
// the annotator's `submit` of version 2 exits 2 with HUB_UNREACHABLE and its fix, nothing in the
// library is lost, and once the hub is back (same port) the same submit completes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit } from '../../src/services/edits/edit-service';
import { openLibrary } from '../../src/services/library/library';
import { effectiveSteps } from '../../src/services/steps';
import { resolveRecordingSeq } from '../../src/store';
import { runCli } from '../helpers/cli';
import { FIXTURE_DIR } from '../helpers/paths';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { startSwift, type Swift } from '../helpers/swift';
import { createBucket, rawClient } from '../services/upload/helpers';
import { addHubUser, HUB_BIN, loginLibrary, startHubProcess, type HubProcess } from './hub-process';

const BUCKET = 'outage-hub';

let root: string;
let pg: Postgres;
let swift: Swift;
let hub: HubProcess;
let hubArgs: string[];
let recordingId = '';
let worker: ChildProcess | null = null;
let workerStderr = '';
const libraryOf = (who: 'ann' | 'rev') => path.join(root, `library-${who}`);

function expectDbUnreachable(run: { code: number | null; stderr: string }): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain('HUB_DB_UNREACHABLE');
  expect(run.stderr).toContain('fix: Your work stays in your library');
}

// `review next` as rev once the submission has joined the queue (a hub with a job runner first
// runs the version's intake: status "intake" until it passes)
async function reviewNextOnceQueued(): Promise<{ stdout: string }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const next = await runCli(['review', 'next', '--library', libraryOf('rev'), '--json']);
    expect(next.code, next.stderr).toBe(0);
    if ((JSON.parse(next.stdout) as { submission: unknown }).submission || Date.now() > deadline) {
      return next;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'hub-db-outage-'));
  [pg, swift] = await Promise.all([startPostgres(), startSwift()]);
  const s3 = rawClient(swift);
  await createBucket(s3, BUCKET);
  s3.destroy();
  const database = await pg.createDatabase();
  hubArgs = [
    '--database',
    database,
    '--storage',
    `s3://${BUCKET}/team`,
    '--endpoint',
    swift.endpoint,
    '--path-style',
  ];
  const [annOtp, revOtp] = await Promise.all([
    addHubUser('ann', ['annotator'], ['--database', database]),
    addHubUser('rev', ['reviewer'], ['--database', database]),
  ]);
  hub = await startHubProcess(hubArgs, { env: swift.env });
  // on PostgreSQL the hub queues each submission's intake for `cua-annotator worker`
  worker = spawn(process.execPath, [HUB_BIN, 'worker', ...hubArgs], {
    env: { ...process.env, ...swift.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  worker.stderr!.on('data', (d: Buffer) => (workerStderr += d.toString()));
  await Promise.all([
    loginLibrary(hub.url, 'ann', annOtp, libraryOf('ann')),
    loginLibrary(hub.url, 'rev', revOtp, libraryOf('rev')),
  ]);
  const imported = await runCli([
    'import',
    FIXTURE_DIR,
    '--no-keyframes',
    '--library',
    libraryOf('ann'),
    '--json',
  ]);
  expect(imported.code, imported.stderr).toBe(0);
  recordingId = (JSON.parse(imported.stdout) as { result: { id: string } }).result.id;
}, 240_000);

afterAll(async () => {
  if (worker && worker.exitCode === null && worker.signalCode === null) {
    const gone = new Promise((r) => worker!.once('exit', r));
    worker.kill('SIGTERM');
    await gone;
  }
  await hub?.stop();
  await Promise.all([pg?.stop(), swift?.stop()]);
  await rm(root, { recursive: true, force: true });
}, 60_000);

describe('the hub’s database or the hub itself unreachable (the second test continues the first)', () => {
  it('PostgreSQL stops while the hub runs: submit, sync and review next get HUB_DB_UNREACHABLE with a fix, the hub stays up; PostgreSQL back → the next calls work without a hub restart', async () => {
    await pg.pause();
    const submit = await runCli([
      'submit',
      recordingId,
      '--no-keyframes',
      '--library',
      libraryOf('ann'),
      '--json',
    ]);
    expectDbUnreachable(submit);
    expect(submit.stdout).toBe('');
    expectDbUnreachable(await runCli(['sync', '--library', libraryOf('ann'), '--json']));
    expectDbUnreachable(await runCli(['review', 'next', '--library', libraryOf('rev'), '--json']));
    expect(hub.child.exitCode).toBeNull();
    expect(hub.child.signalCode).toBeNull();
    // the library keeps working while the hub cannot
    const listed = await runCli(['list', '--library', libraryOf('ann'), '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(recordingId);

    await pg.resume();
    const again = await runCli([
      'submit',
      recordingId,
      '--no-keyframes',
      '--library',
      libraryOf('ann'),
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      submissions: [{ id: 1, recording: recordingId, version: 1, status: expect.any(String) }],
    });
    expect(['intake', 'submitted']).toContain(
      (JSON.parse(again.stdout) as { submissions: { status: string }[] }).submissions[0]!.status,
    );
    const sync = await runCli(['sync', '--library', libraryOf('ann'), '--json']);
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ submissions: [{ id: 1, version: 1 }] });
    const next = await reviewNextOnceQueued();
    expect(worker!.exitCode, workerStderr).toBeNull();
    expect(JSON.parse(next.stdout)).toMatchObject({
      submission: { id: 1, recording: recordingId, annotator: 'ann', version: 1 },
    });
    expect(hub.stderr()).not.toMatch(/internal hub error|failed: /);
  }, 240_000);

  it('the hub itself is down: submit says HUB_UNREACHABLE with a fix and loses nothing; the same submit completes once the hub is back', async () => {
    // the reviewer asks for changes; the annotator's edit makes version 2
    const verdict = await runCli([
      'review',
      'verdict',
      recordingId,
      'changes',
      '--feedback',
      'name the first step',
      '--library',
      libraryOf('rev'),
    ]);
    expect(verdict.code, verdict.stderr).toBe(0);
    const lib = openLibrary(libraryOf('ann'));
    try {
      const { seq } = resolveRecordingSeq(lib.db, recordingId);
      const step = effectiveSteps(lib, seq)[0]!;
      applyEdit(lib, recordingId, { op: 'relabel', stepId: step.id, label: 'Open Display' });
    } finally {
      lib.close();
    }
    const port = hub.port;
    await hub.stop();
    const down = await runCli([
      'submit',
      recordingId,
      '--no-keyframes',
      '--library',
      libraryOf('ann'),
    ]);
    expect(down.code, down.stderr).toBe(2);
    expect(down.stderr).toContain('HUB_UNREACHABLE');
    expect(down.stderr).toMatch(/fix: Check the address and that the hub runs/);
    // nothing lost: the recording with its edit, and the staged bundle
    const listed = await runCli(['list', '--library', libraryOf('ann'), '--json']);
    expect(listed.stdout).toContain(recordingId);
    expect(
      (await stat(path.join(libraryOf('ann'), 'uploads', `hub-${recordingId}`))).isDirectory(),
    ).toBe(true);

    hub = await startHubProcess(hubArgs, { env: swift.env, port });
    const back = await runCli([
      'submit',
      recordingId,
      '--no-keyframes',
      '--library',
      libraryOf('ann'),
      '--json',
    ]);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({
      submissions: [{ id: 1, recording: recordingId, version: 2 }],
    });
  }, 240_000);

  it('the S3 bucket is over its quota: submit exits with STORAGE_FULL and a fix, nothing registered; with the quota lifted the same submit completes', async () => {
    // a second annotator with a recording of their own
    const otp = await addHubUser('ann2', ['annotator'], ['--database', hubArgs[1]!]);
    const library = path.join(root, 'library-ann2');
    await loginLibrary(hub.url, 'ann2', otp, library);
    const imported = await runCli([
      'import',
      FIXTURE_DIR,
      '--no-keyframes',
      '--library',
      library,
      '--json',
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    const id = (JSON.parse(imported.stdout) as { result: { id: string } }).result.id;

    // Swift's own API: room for 200 KB more in the bucket (its s3api answers EntityTooLarge)
    const auth = await fetch(`${swift.endpoint}/auth/v1.0`, {
      headers: { 'x-auth-user': 'test:tester', 'x-auth-key': 'testing' },
    });
    await auth.arrayBuffer();
    const token = auth.headers.get('x-auth-token')!;
    const container = `${auth.headers.get('x-storage-url')!}/${BUCKET}`;
    const head = await fetch(container, { method: 'HEAD', headers: { 'x-auth-token': token } });
    const used = Number(head.headers.get('x-container-bytes-used'));
    const quota = await fetch(container, {
      method: 'POST',
      headers: { 'x-auth-token': token, 'x-container-meta-quota-bytes': String(used + 200_000) },
    });
    expect(quota.status).toBe(204);

    const full = await runCli(['submit', id, '--no-keyframes', '--library', library, '--json']);
    expect(full.code, full.stderr).toBe(2);
    expect(full.stderr).toContain('STORAGE_FULL');
    expect(full.stderr).toContain('(HTTP 400): EntityTooLarge');
    expect(full.stderr).toMatch(/fix: .*make room/);
    const none = await runCli(['sync', '--library', library, '--json']);
    expect(JSON.parse(none.stdout)).toEqual({ submissions: [] });

    const lifted = await fetch(container, {
      method: 'POST',
      headers: { 'x-auth-token': token, 'x-remove-container-meta-quota-bytes': 'x' },
    });
    expect(lifted.status).toBe(204);
    const done = await runCli(['submit', id, '--no-keyframes', '--library', library, '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ submissions: [{ recording: id, version: 1 }] });
  }, 240_000);
});
