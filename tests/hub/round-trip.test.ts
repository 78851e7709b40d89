// The review round trip as three people (issue 27), on the embedded default (one `hub --data DIR`
// child process: PGlite + the folder object store served by the hub) and at scale (`hub
// --database` on PostgreSQL + `--storage s3://…` on Swift's S3), three libraries and three
// sign-ins (annotator, reviewer, admin), every step a separate CLI process. The annotator
// imports the example and submits it; the reviewer takes it with `review next` (it lands in
// their library), relabels a step and asks for changes with feedback; the annotator's `sync`
// shows the feedback, they fix the step and submit version 2 (a rerun sends nothing and
// registers nothing twice); the reviewer accepts it with a grade; the admin sees it accepted
// with the reviewer's edit log. Edits go through the library services (the CLI has no edit
// command), each while no CLI process has that library open.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit } from '../../src/services/edits/edit-service';
import { openLibrary } from '../../src/services/library/library';
import { effectiveSteps } from '../../src/services/steps';
import { resolveRecordingSeq } from '../../src/store';
import { runCli, type CliRun } from '../helpers/cli';
import { FIXTURE_DIR, REPO_ROOT } from '../helpers/paths';
import { startPostgres } from '../helpers/postgres';
import { startSwift } from '../helpers/swift';
import { createBucket, listObjects, rawClient } from '../services/upload/helpers';

const BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');
const EXAMPLE = FIXTURE_DIR;
const NEW_PASSWORD = 'a long new password 42';
const PEOPLE = { ann: 'annotator', rev: 'reviewer', adm: 'admin' } as const;
type Person = keyof typeof PEOPLE;

/** Where the hub keeps its data and objects, and how the test looks at the objects. */
type Backend = {
  /** `--data DIR`, or `--database URL --storage s3://… --endpoint … --path-style`. */
  hubArgs: string[];
  /** A `worker` to run beside the hub (its jobs: the intake of every submission), if any. */
  workerArgs?: string[];
  /** Environment of the hub process (S3 credentials). */
  hubEnv: NodeJS.ProcessEnv;
  /** The bundle folders (one per manifest) stored for ann's recording `id`. */
  bundles: (id: string) => Promise<string[]>;
  /** Deletes the stored video of a bundle; resolves with a check that it is back. */
  dropVideo: (id: string, bundle: string) => Promise<() => Promise<boolean>>;
  /** Stops the database while the hub runs (PostgreSQL only). */
  stopDatabase?: () => Promise<void>;
  close: () => Promise<void>;
};

function embedded(): Promise<Backend> {
  const dataDir = path.join(root, 'hub-data');
  const folder = (id: string) => path.join(dataDir, 'objects', 'ann', id);
  return Promise.resolve({
    hubArgs: ['--data', dataDir],
    hubEnv: {},
    bundles: async (id) => await readdir(folder(id)),
    dropVideo: async (id, bundle) => {
      const videoDir = path.join(folder(id), bundle, 'video');
      const [video] = await readdir(videoDir);
      await rm(path.join(videoDir, video!));
      return async () => (await stat(path.join(videoDir, video!)).catch(() => null)) !== null;
    },
    close: () => Promise.resolve(),
  });
}

const BUCKET = 'team-hub';
const PREFIX = 'team';

async function postgresAndSwift(): Promise<Backend> {
  const [pg, swift] = await Promise.all([startPostgres(), startSwift()]);
  const s3 = rawClient(swift);
  let pgStopped: Promise<void> | null = null;
  await createBucket(s3, BUCKET);
  const url = await pg.createDatabase();
  const keys = async (id: string) => [
    ...(await listObjects(s3, BUCKET, `${PREFIX}/ann/${id}/`)).keys(),
  ];
  return {
    hubArgs: [
      '--database',
      url,
      '--storage',
      `s3://${BUCKET}/${PREFIX}`,
      '--endpoint',
      swift.endpoint,
      '--path-style',
    ],
    hubEnv: swift.env,
    // on PostgreSQL the hub queues the jobs (the intake of every submission) for workers
    workerArgs: [
      'worker',
      '--database',
      url,
      '--storage',
      `s3://${BUCKET}/${PREFIX}`,
      '--endpoint',
      swift.endpoint,
      '--path-style',
    ],
    bundles: async (id) => [...new Set((await keys(id)).map((k) => k.split('/')[3]!))],
    dropVideo: async (id, bundle) => {
      const video = (await keys(id)).find((k) =>
        k.startsWith(`${PREFIX}/ann/${id}/${bundle}/video/`),
      )!;
      await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: video }));
      return async () => (await keys(id)).includes(video);
    },
    stopDatabase: async () => {
      pgStopped ??= pg.stop();
      await pgStopped;
    },
    close: async () => {
      s3.destroy();
      pgStopped ??= pg.stop();
      await Promise.all([pgStopped, swift.stop()]);
    },
  };
}

let root: string;
let backend: Backend;
let recordingId = '';
let hub: ChildProcess | null = null;
let worker: ChildProcess | null = null;
let hubUrl = '';
let hubStderr = '';
const libraryOf = (p: Person) => path.join(root, `library-${p}`);

function runWithInput(args: string[], input: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Waits until the hub's intake job (re-hash, PII scan, check: docs/jobs.md §H) decided the
 * annotator's submission of `recording`; returns its sync row. */
async function intaken(recording: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { submissions } = (await as('ann', ['sync'])) as {
      submissions: { recording: string; status: string }[];
    };
    const s = submissions.find((x) => x.recording === recording);
    if (s && s.status !== 'intake') {
      return s;
    }
    if (Date.now() > deadline) {
      throw new Error(`no intake of ${recording} within 120 s: ${hubStderr.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs the CLI as `who` (their library) and parses its --json output; fails on a non-zero exit. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CLI JSON is read freely
async function as(who: Person, args: string[]): Promise<any> {
  const run = await runCli([...args, '--library', libraryOf(who), '--json']);
  if (run.code !== 0) {
    throw new Error(`${args.join(' ')} as ${who} exited ${run.code}: ${run.stderr}`);
  }
  return JSON.parse(run.stdout);
}

function startHub(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'hub', ...backend.hubArgs, '--port', '0', '--json'],
      { env: { ...process.env, ...backend.hubEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (hubStderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        resolve({ child, url: (JSON.parse(line) as { url: string }).url });
      }
    });
    child.once('exit', (code) => reject(new Error(`hub exited ${code}: ${hubStderr}`)));
  });
}

/** Applies a relabel of step `index` in `who`'s library, through the services. */
function relabel(who: Person, recordingId: string, index: number, label: string): string {
  const lib = openLibrary(libraryOf(who));
  try {
    const { seq } = resolveRecordingSeq(lib.db, recordingId);
    const step = effectiveSteps(lib, seq)[index]!;
    applyEdit(lib, recordingId, { op: 'relabel', stepId: step.id, label }, { author: who });
    return step.id;
  } finally {
    lib.close();
  }
}

function labelOf(who: Person, recordingId: string, stepId: string): string | null | undefined {
  const lib = openLibrary(libraryOf(who));
  try {
    const { seq } = resolveRecordingSeq(lib.db, recordingId);
    return effectiveSteps(lib, seq).find((s) => s.id === stepId)?.label;
  } finally {
    lib.close();
  }
}

async function setUp(makeBackend: () => Promise<Backend>): Promise<void> {
  root = await mkdtemp(path.join(os.tmpdir(), 'hub-round-trip-'));
  hubStderr = '';
  backend = await makeBackend();
  // accounts before the first start (the hub holds the folder once it runs)
  const passwords: Record<string, string> = {};
  for (const [name, role] of Object.entries(PEOPLE)) {
    const add = await runCli([
      'hub',
      'user',
      'add',
      name,
      '--role',
      role,
      ...backend.hubArgs.slice(0, 2),
      '--json',
    ]);
    expect(add.code, add.stderr).toBe(0);
    passwords[name] = (JSON.parse(add.stdout) as { password: string }).password;
  }
  const started = await startHub();
  hub = started.child;
  hubUrl = started.url;
  if (backend.workerArgs) {
    worker = spawn(process.execPath, [BIN, ...backend.workerArgs], {
      env: { ...process.env, ...backend.hubEnv },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    worker.stderr!.on('data', (d: Buffer) => (hubStderr += d.toString()));
  }
  // each person signs their library in; the first sign-in changes the one-time password
  const logins = await Promise.all(
    Object.keys(PEOPLE).map((name) =>
      runWithInput(
        [
          'login',
          hubUrl,
          '--user',
          name,
          '--password-stdin',
          '--new-password',
          '--library',
          libraryOf(name as Person),
          '--json',
        ],
        `${passwords[name]}\n${NEW_PASSWORD}\n`,
      ),
    ),
  );
  for (const l of logins) {
    expect(l.code, l.stderr).toBe(0);
  }
}

async function tearDown(): Promise<void> {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((r) => worker!.once('exit', r));
    worker.kill('SIGTERM');
    await exited;
  }
  if (hub && hub.exitCode === null) {
    const exited = new Promise((r) => hub!.once('exit', r));
    hub.kill('SIGTERM');
    await exited;
  }
  await backend?.close();
  await rm(root, { recursive: true, force: true });
}

function roundTrip(name: string, makeBackend: () => Promise<Backend>, dbOutage = false): void {
  describe(`the review round trip (${name})`, () => {
    beforeAll(() => setUp(makeBackend), 240_000);
    afterAll(tearDown, 60_000);
    it('annotator submits, reviewer asks for changes, annotator resubmits v2, reviewer accepts, admin sees it with the edit log', async () => {
      // nothing waits yet
      expect(await as('rev', ['review', 'next'])).toEqual({ submission: null });

      const imported = await as('ann', ['import', EXAMPLE, '--no-keyframes']);
      const id = (imported as { result: { id: string } }).result.id;
      recordingId = id;
      expect(id).toBeTruthy();

      // version 1
      const first = await as('ann', ['submit', id, '--no-keyframes']);
      expect(first).toEqual({
        // taken in by the hub's intake job before any reviewer sees it
        submissions: [{ id: expect.any(Number), recording: id, version: 1, status: 'intake' }],
      });
      const submissionId = first.submissions[0].id as number;
      expect(await intaken(id)).toMatchObject({ status: 'submitted' });
      // the hub's store keeps the bundle under the annotator and the recording
      const [bundle, ...more] = await backend.bundles(id);
      expect(more).toEqual([]);

      // a file lost on the hub's side (as after a crash mid-submit): a rerun sends only it and
      // the manifest, and registers nothing new
      const videoIsBack = await backend.dropVideo(id, bundle!);
      expect(await videoIsBack()).toBe(false);
      const resumed = await runCli(['submit', id, '--no-keyframes', '--library', libraryOf('ann')]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain(`already submission ${submissionId} version 1`);
      expect(resumed.stdout).toContain('2 missing files sent');
      expect(await videoIsBack()).toBe(true);

      // the annotator sees only their own: waiting, no verdict
      expect((await as('ann', ['sync'])).submissions).toEqual([
        {
          id: submissionId,
          recording: id,
          version: 1,
          status: 'submitted',
          grade: null,
          feedback: null,
          reviewer: null,
          taskId: null,
          intake: { status: 'passed', reasons: [] },
        },
      ]);

      // the reviewer takes it: it is now in their library
      const taken = await as('rev', ['review', 'next']);
      expect(taken).toEqual({
        submission: {
          id: submissionId,
          recording: id,
          annotator: 'ann',
          task: expect.any(String),
          version: 1,
        },
      });
      const shown = await as('rev', ['show', id]);
      expect(shown.id ?? shown.recording?.id).toBe(id);
      // nobody else gets it while the lease lasts; the holder gets it back
      expect((await as('rev', ['review', 'next'])).submission.id).toBe(submissionId);

      const stepId = relabel('rev', id, 0, 'Open the Display settings page');
      const changes = await as('rev', [
        'review',
        'verdict',
        id,
        'changes',
        '--feedback',
        'Step 1 says what the click does, not where: fix the label.',
      ]);
      expect(changes.verdict).toMatchObject({
        id: submissionId,
        version: 1,
        status: 'changes',
        edits: 1,
      });

      // the annotator's sync shows the verdict and the feedback
      expect((await as('ann', ['sync'])).submissions).toEqual([
        {
          id: submissionId,
          recording: id,
          version: 1,
          status: 'changes',
          grade: null,
          feedback: 'Step 1 says what the click does, not where: fix the label.',
          reviewer: 'rev',
          taskId: null,
          intake: { status: 'passed', reasons: [] },
        },
      ]);

      // the fix, then version 2; a rerun sends nothing new and registers nothing twice
      relabel('ann', id, 0, 'Open Settings, then System > Display');
      const second = await as('ann', ['submit', id, '--no-keyframes']);
      expect(second.submissions).toEqual([
        { id: submissionId, recording: id, version: 2, status: 'intake' },
      ]);
      expect(await intaken(id)).toMatchObject({ version: 2, status: 'submitted' });
      const again = await runCli(['submit', id, '--no-keyframes', '--library', libraryOf('ann')]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('already submission');
      expect(again.stdout).toContain('version 2');
      expect(again.stdout).toContain('0 missing files sent');
      expect(await backend.bundles(id)).toHaveLength(2);

      // the reviewer takes version 2 (it replaces version 1 in their library) and accepts it
      const v2 = await as('rev', ['review', 'next']);
      expect(v2.submission).toMatchObject({ id: submissionId, recording: id, version: 2 });
      // version 2 replaced version 1 (and the reviewer's edit of it) in the reviewer's library
      expect(labelOf('rev', id, stepId)).toBe('Open Settings, then System > Display');
      const accepted = await as('rev', ['review', 'verdict', id, 'accept', '--grade', 'good']);
      expect(accepted.verdict).toMatchObject({ version: 2, status: 'accepted', edits: 0 });
      expect(await as('rev', ['review', 'next'])).toEqual({ submission: null });

      expect((await as('ann', ['sync'])).submissions[0]).toMatchObject({
        version: 2,
        status: 'accepted',
        grade: 'good',
        reviewer: 'rev',
      });

      // the admin's view: accepted, with every verdict and the reviewer's edit log
      const all = await as('adm', ['sync', '--all']);
      expect(all.submissions).toHaveLength(1);
      const s = all.submissions[0];
      expect(s).toMatchObject({
        id: submissionId,
        annotator: 'ann',
        version: 2,
        status: 'accepted',
      });
      expect(
        s.verdicts.map((v: { version: number; verdict: string }) => [v.version, v.verdict]),
      ).toEqual([
        [1, 'changes'],
        [2, 'accept'],
      ]);
      expect(s.verdicts[0].editLog).toEqual([
        {
          atMs: expect.any(Number),
          author: 'rev',
          edit: { op: 'relabel', stepId, label: 'Open the Display settings page' },
        },
      ]);
      expect(s.verdicts[1].grade).toBe('good');

      // a library that never signed in is told how to
      const unsigned = await runCli(['sync', '--library', path.join(root, 'library-nobody')]);
      expect(unsigned.code).toBe(2);
      expect(unsigned.stderr).toContain('HUB_NOT_SIGNED_IN');
      expect(unsigned.stderr).toContain('cua-annotator login');

      // roles hold on the CLI too: the annotator cannot list everyone's submissions
      const denied = await runCli(['sync', '--all', '--library', libraryOf('ann')]);
      expect(denied.code).toBe(2);
      expect(denied.stderr).toContain('FORBIDDEN');
    }, 300_000);

    if (dbOutage) {
      it('the database stops while the hub runs: sync answers HUB_DB_UNREACHABLE with a fix, and the library keeps working', async () => {
        await backend.stopDatabase!();
        const down = await runCli(['sync', '--library', libraryOf('ann')]);
        expect(down.code).toBe(2);
        expect(down.stderr).toContain('HUB_DB_UNREACHABLE');
        expect(down.stderr).toContain('Your work stays in your library');
        expect(JSON.stringify(await as('ann', ['list']))).toContain(recordingId);
      }, 60_000);
    }
  });
}

roundTrip('embedded: PGlite + the data folder', embedded);
roundTrip('PostgreSQL + S3 (Swift)', postgresAndSwift, true);
