// Submission bundles for the job handlers' tests and bench/jobs-intake.ts, made fast: the example
// recording's bundle is built once (buildBundle, as `submit` builds it), and copies of it get new
// recording and episode ids by rewriting the ids in its text files (rows, steps, the import's
// metadata) — the video and the keyframe images stay the same bytes, so no video is encoded or
// decoded. Each copy is put into a hub store and registered as a version like `submit` does.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { registerVersion, type RegisteredVersion } from '../../../src/hub/review/queue';
import { bundlePrefix } from '../../../src/hub/review/submit';
import type { HubRootDb } from '../../../src/hub/db';
import type { HubObjectStore } from '../../../src/hub/storage';
import type { JobContext } from '../../../src/hub/jobs/types';
import { getRecording } from '../../../src/store';
import { applyEdit } from '../../../src/services/edits/edit-service';
import { showRecording } from '../../../src/services/recordings';
import { buildBundle } from '../../../src/services/upload/bundle';
import {
  MANIFEST_NAME,
  SUBMISSION_SCHEMA,
  SUBMISSION_SCHEMA_VERSION,
  manifestText,
  type SubmissionManifest,
} from '../../../src/services/upload/manifest';
import { makeCheckRecording } from '../../helpers/check-recording';
import { exampleLibrary } from '../../helpers/example-library';
import { tempLibrary } from '../../helpers/library';

/** One file of a template bundle: its bytes, or the path of a large binary (the video). */
type TemplateFile = {
  entry: Omit<SubmissionManifest['files'][number], 'sizeBytes' | 'sha256'>;
  text?: string;
  file?: string;
};

/** The example recording's bundle, read into memory (text files) or referenced (binaries). */
export type BundleTemplate = {
  recordingId: string;
  episodeId: string;
  base: Omit<SubmissionManifest, 'files' | 'totals' | 'annotator' | 'recordingId' | 'episodeId'>;
  files: TemplateFile[];
  /** Removes the example library and the staged bundle. */
  cleanup: () => void;
};

const TEXT_RE = /\.(json|jsonl|txt|csv|md)$/;

/** Builds the example recording's submission bundle once; with `relabel`, its first step's
 * label is edited first (the bundle carries the edit log, the exports the edited label); with
 * `clip`, of the example's first 10 seconds (tests/helpers/example-clip.ts: 2 steps, a quarter of
 * the video's bytes) for tests that decode it many times. */
export async function bundleTemplate(
  options: { relabel?: string; keyframes?: boolean; clip?: boolean } = {},
): Promise<BundleTemplate> {
  const ex = await exampleLibrary({ keyframes: options.keyframes ?? true, clip: options.clip });
  return await templateOf(ex, options);
}

/** A small bundle that passes the intake: a recording of three steps and terminate reduced from
 * a short input script (tests/helpers/check-recording.ts), fresh keyframe rows, and a stand-in
 * video of `videoBytes` random bytes (nothing decodes it: the intake hashes it, `check` reads its
 * row). For benches of many submissions (bench/jobs-team-sim.ts). */
export async function smallBundleTemplate(videoBytes = 64 * 1024): Promise<BundleTemplate> {
  const t = tempLibrary();
  const { id } = makeCheckRecording(t.lib);
  const rec = getRecording(t.lib.db, id);
  for (const v of rec.videos) {
    await fs.mkdir(path.dirname(t.lib.resolve(v.path)), { recursive: true });
    await fs.writeFile(t.lib.resolve(v.path), randomBytes(videoBytes));
  }
  return await templateOf({ lib: t.lib, id, cleanup: t.cleanup }, {});
}

async function templateOf(
  ex: { lib: Awaited<ReturnType<typeof exampleLibrary>>['lib']; id: string; cleanup: () => void },
  options: { relabel?: string },
): Promise<BundleTemplate> {
  if (options.relabel !== undefined) {
    const first = showRecording(ex.lib, ex.id).steps[0]!;
    applyEdit(
      ex.lib,
      ex.id,
      { op: 'relabel', stepId: first.id, label: options.relabel },
      { author: 'test', now: () => Date.UTC(2026, 0, 1) },
    );
  }
  const stage = await fs.mkdtemp(path.join(os.tmpdir(), 'cua-bundle-template-'));
  const bundle = await buildBundle(ex.lib, ex.id, ex.lib.resolve('uploads/hub-template'), {
    appVersion: 'test',
    includeKeyframes: false,
  });
  const rec = getRecording(ex.lib.db, ex.id);
  const files: TemplateFile[] = [];
  for (const f of bundle.files) {
    const abs = path.isAbsolute(f.path) ? f.path : ex.lib.resolve(f.path);
    const entry = {
      path: f.relKey,
      role: f.role,
      ...(f.libraryPath ? { libraryPath: f.libraryPath } : {}),
      ...(f.table ? { table: f.table } : {}),
    };
    if (TEXT_RE.test(f.relKey)) {
      files.push({ entry, text: await fs.readFile(abs, 'utf8') });
    } else {
      // binaries are read from a copy that outlives the library
      const copy = path.join(stage, 'bin', f.relKey);
      await fs.mkdir(path.dirname(copy), { recursive: true });
      await fs.copyFile(abs, copy);
      files.push({ entry, file: copy });
    }
  }
  return {
    recordingId: ex.id,
    episodeId: bundle.episodeId,
    base: {
      schema: SUBMISSION_SCHEMA,
      schemaVersion: SUBMISSION_SCHEMA_VERSION,
      task: rec.task,
      platform: rec.platform,
      toolVersion: 'test',
      librarySchemaVersion: bundle.librarySchemaVersion,
      createdAt: new Date(rec.createdAtMs).toISOString(),
      submittedAt: '2026-01-01T00:00:00.000Z',
      stepCount: bundle.stepCount,
    },
    files,
    cleanup: () => {
      ex.cleanup();
      void fs.rm(stage, { recursive: true, force: true });
    },
  };
}

/** A bundle ready to store: every file's bytes (binaries by path) and the manifest's text. */
export type MadeBundle = {
  recordingId: string;
  episodeId: string;
  manifest: SubmissionManifest;
  text: string;
  files: { path: string; body: Buffer | string }[];
};

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A copy of the template with a new recording id (and episode id), for `annotator`.
 * `edit` may change the text files (the rows) before hashing. */
export async function makeBundle(
  t: BundleTemplate,
  input: {
    annotator: string;
    recordingId?: string;
    episodeId?: string;
    edit?: (relKey: string, text: string) => string;
  },
): Promise<MadeBundle> {
  const recordingId = input.recordingId ?? randomUUID();
  const episodeId = input.episodeId ?? `${t.episodeId}-${recordingId.slice(0, 8)}`;
  const files: MadeBundle['files'] = [];
  const entries: SubmissionManifest['files'] = [];
  let bytes = 0;
  for (const f of t.files) {
    let body: Buffer;
    if (f.text !== undefined) {
      let text = f.text.split(t.recordingId).join(recordingId);
      // the import's folder name is the export's episode id (export-load.ts episodeIdOf)
      text = text.split(t.episodeId).join(episodeId);
      text = input.edit ? input.edit(f.entry.path, text) : text;
      body = Buffer.from(text);
      files.push({ path: f.entry.path, body });
    } else {
      body = await fs.readFile(f.file!);
      files.push({ path: f.entry.path, body: f.file! });
    }
    bytes += body.length;
    entries.push({ ...f.entry, sizeBytes: body.length, sha256: sha256(body) });
  }
  const manifest: SubmissionManifest = {
    ...t.base,
    recordingId,
    episodeId,
    annotator: input.annotator,
    files: entries,
    totals: { files: entries.length, bytes },
  };
  return { recordingId, episodeId, manifest, text: manifestText(manifest), files };
}

/** Puts a bundle's files and manifest into the store under the hub's prefix for it. */
export async function storeBundle(store: HubObjectStore, b: MadeBundle): Promise<string> {
  const manifestSha256 = sha256(Buffer.from(b.text));
  const prefix = bundlePrefix(b.manifest.annotator, b.recordingId, manifestSha256);
  for (const f of b.files) {
    const body = typeof f.body === 'string' ? await fs.readFile(f.body) : f.body;
    await store.put(`${prefix}/${f.path}`, body);
  }
  await store.put(`${prefix}/${MANIFEST_NAME}`, Buffer.from(b.text));
  return manifestSha256;
}

/** Stores a bundle and registers it as the annotator's next version (as `submit` does, without
 * the HTTP round trip). */
export async function submitBundle(
  db: HubRootDb,
  store: HubObjectStore,
  b: MadeBundle,
  annotator: { userId: number; name: string },
  options: { awaitIntake?: boolean } = {},
): Promise<RegisteredVersion> {
  const manifestSha256 = await storeBundle(store, b);
  return await registerVersion(db, {
    annotator: { ...annotator, client: 'cli' },
    recordingId: b.recordingId,
    task: b.manifest.task,
    manifestSha256,
    objectPrefix: bundlePrefix(annotator.name, b.recordingId, manifestSha256),
    ...(options.awaitIntake ? { awaitIntake: true } : {}),
  });
}

/** A job context for running a handler directly (no engine): its log lines are kept. */
export function testContext(key: string): JobContext & { lines: string[] } {
  const lines: string[] = [];
  return {
    key,
    attempt: 1,
    signal: new AbortController().signal,
    progress: () => Promise.resolve(),
    log: (l) => lines.push(l),
    lines,
  };
}
