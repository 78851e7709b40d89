// Pull: imports complete submissions from a bucket prefix into a (reviewer's) library. A
// submission is complete when its manifest.json exists and every file it lists is there with
// the listed size; each file's SHA-256 is checked while it downloads. Partial submissions and
// recordings already in the library are skipped. The recording is reproduced exactly: same id,
// same files (same checksums), same rows (raw layer, steps, edit log, labels, reviews).
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { AppError, isAppError } from '../../shared/errors';
import { findRecordingBasics } from '../../store';
import { insertPull } from '../../store/queries/uploads';
import { RECORDINGS_DIR, type Library } from '../library/library';
import { effectiveSteps } from '../steps';
import { createLimiter } from './limiter';
import {
  MANIFEST_NAME,
  parseManifest,
  type ManifestFile,
  type SubmissionManifest,
} from './manifest';
import type { ObjectInfo, ObjectStore } from './object-store';
import {
  remapEditRefs,
  restoreRecording,
  type DumpRow,
  type RecordingDump,
  type RestoredRecording,
} from './recording-dump';
import { DEFAULT_RETRY_POLICY, abortedError, withRetry, type RetryPolicy } from './retry';
import { joinKey } from './target';

/** Options of {@link pullSubmissions}. */
export type PullOptions = {
  /** Only submissions submitted at or after this time (epoch ms). */
  sinceMs?: number;
  /** Downloads in flight at once. Default 4. */
  concurrency?: number;
  retry?: RetryPolicy;
  signal?: AbortSignal;
  onProgress?: (p: PullProgress) => void;
  /** Clock (epoch ms). Default Date.now. */
  now?: () => number;
};

/** Progress of a pull: submissions examined and bytes downloaded. */
export type PullProgress = {
  submissionsDone: number;
  submissionsTotal: number;
  recordingId: string;
  bytesDone: number;
  detail: string;
};

/** What happened to one submission folder. */
export type PullItem = {
  /** `<annotator>/<recording-id>` below the prefix. */
  folder: string;
  recordingId: string;
  annotator: string;
  /** imported; present (already in the library); partial (incomplete); invalid (bad manifest). */
  status: 'imported' | 'present' | 'partial' | 'invalid';
  reason: string | null;
  /** Bytes downloaded for this submission. */
  bytes: number;
  warnings: string[];
};

type Folder = {
  folder: string;
  annotator: string;
  recordingId: string;
  objects: Map<string, ObjectInfo>;
};

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) {
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks);
}

function parseJsonLines(text: string, where: string): DumpRow[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l) as DumpRow;
      } catch (e) {
        throw new AppError('PULL_INVALID', `${where} line ${i + 1}: ${(e as Error).message}`);
      }
    });
}

// Lists the submission folders (`<annotator>/<recording-id>/…`) under a prefix.
export async function listSubmissionFolders(
  store: ObjectStore,
  prefix: string,
  signal?: AbortSignal,
): Promise<Folder[]> {
  const base = prefix ? `${prefix}/` : '';
  const folders = new Map<string, Folder>();
  for await (const o of store.listObjects(base, signal ? { signal } : {})) {
    const parts = o.key.slice(base.length).split('/');
    if (parts.length < 3) {
      continue;
    }
    const [annotator, recordingId] = parts as [string, string];
    const folder = `${annotator}/${recordingId}`;
    let f = folders.get(folder);
    if (!f) {
      f = { folder, annotator, recordingId, objects: new Map() };
      folders.set(folder, f);
    }
    f.objects.set(parts.slice(2).join('/'), o);
  }
  return [...folders.values()].sort((a, b) => (a.folder < b.folder ? -1 : 1));
}

// Imports every complete submission under `prefix` that the library does not have yet.
export async function pullSubmissions(
  lib: Library,
  store: ObjectStore,
  prefix: string,
  options: PullOptions = {},
): Promise<PullItem[]> {
  const now = options.now ?? Date.now;
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const retry = <T>(op: () => Promise<T>) =>
    withRetry(op, { policy, ...(options.signal ? { signal: options.signal } : {}) });
  const call = options.signal ? { signal: options.signal } : {};
  const folders = await retry(() => listSubmissionFolders(store, prefix, options.signal));
  const items: PullItem[] = [];
  let bytesDone = 0;
  for (const [i, f] of folders.entries()) {
    const item: PullItem = {
      folder: f.folder,
      recordingId: f.recordingId,
      annotator: f.annotator,
      status: 'partial',
      reason: null,
      bytes: 0,
      warnings: [],
    };
    const tick = (detail: string) =>
      options.onProgress?.({
        submissionsDone: i,
        submissionsTotal: folders.length,
        recordingId: f.recordingId,
        bytesDone,
        detail,
      });
    const manifestInfo = f.objects.get(MANIFEST_NAME);
    if (!manifestInfo) {
      item.reason =
        'no manifest.json: the submission is incomplete (upload still running or interrupted)';
      items.push(item);
      continue;
    }
    if (
      options.sinceMs !== undefined &&
      manifestInfo.lastModifiedMs !== null &&
      manifestInfo.lastModifiedMs < options.sinceMs - 1000
    ) {
      continue; // older than --since (listing dates are to the second)
    }
    const base = joinKey(prefix, f.folder);
    let manifest: SubmissionManifest;
    let manifestBytes: Buffer;
    try {
      manifestBytes = await retry(async () =>
        readAll(await store.getObject(joinKey(base, MANIFEST_NAME), call)),
      );
      manifest = parseManifest(manifestBytes.toString('utf8'), `${f.folder}/${MANIFEST_NAME}`);
      if (manifest.recordingId !== f.recordingId || manifest.annotator !== f.annotator) {
        throw new AppError(
          'PULL_INVALID',
          `${f.folder}/${MANIFEST_NAME} names ${manifest.annotator}/${manifest.recordingId}, not its folder`,
        );
      }
    } catch (e) {
      if (!isAppError(e, 'PULL_INVALID')) {
        throw e;
      }
      item.status = 'invalid';
      item.reason = e.message;
      items.push(item);
      continue;
    }
    if (options.sinceMs !== undefined && Date.parse(manifest.submittedAt) < options.sinceMs) {
      continue;
    }
    if (findRecordingBasics(lib.db, manifest.recordingId) !== null) {
      item.status = 'present';
      item.reason = 'already in the library';
      items.push(item);
      continue;
    }
    const missing = manifest.files.filter((m) => f.objects.get(m.path)?.sizeBytes !== m.sizeBytes);
    if (missing.length) {
      item.reason = `${missing.length} listed file(s) missing or of another size: ${missing
        .slice(0, 3)
        .map((m) => m.path)
        .join(', ')}`;
      items.push(item);
      continue;
    }
    tick('downloading');
    let result: { seq: number; warnings: string[] };
    try {
      result = await importBundle(
        lib,
        { where: base, get: (rel, c) => store.getObject(joinKey(base, rel), c) },
        manifest,
        {
          retry,
          call,
          concurrency: options.concurrency ?? 4,
          onBytes: (n) => {
            bytesDone += n;
            item.bytes += n;
          },
        },
      );
    } catch (e) {
      if (!isAppError(e, 'UPLOAD_VERIFY_FAILED') && !isAppError(e, 'PULL_INVALID')) {
        throw e;
      }
      item.status = 'invalid';
      item.reason = e.message;
      items.push(item);
      continue;
    }
    insertPull(lib.db, result.seq, {
      source: `s3://${base}`,
      annotator: manifest.annotator,
      manifestSha256: createHash('sha256').update(manifestBytes).digest('hex'),
      submittedAt: manifest.submittedAt,
      pulledAtMs: now(),
    });
    item.status = 'imported';
    item.warnings = result.warnings;
    items.push(item);
    tick('imported');
  }
  return items;
}

/** Files a restore needs; the exports and keyframes can be rebuilt from them. */
function isNeeded(f: ManifestFile): boolean {
  return (
    f.role === 'video' ||
    f.role === 'file' ||
    f.role === 'recording' ||
    f.role === 'table' ||
    f.role === 'steps'
  );
}

/** Where a bundle's files come from: `get` streams one file by its manifest path; `where`
 * names the place in messages. */
export type BundleSource = {
  where: string;
  get: (path: string, call: { signal?: AbortSignal }) => Promise<AsyncIterable<Uint8Array>>;
};

/** Downloads a submission bundle's files (each checked against the manifest's size and
 * SHA-256 while it downloads) into a staging folder and restores the recording into the library
 * (same id, files, rows, edit log); the staging folder is removed either way. Used by `pull`
 * (bucket objects) and the team review (`review next`: the hub's presigned URLs). */
export async function importBundle(
  lib: Library,
  source: BundleSource,
  manifest: SubmissionManifest,
  io: {
    retry: <T>(op: () => Promise<T>) => Promise<T>;
    call: { signal?: AbortSignal };
    concurrency: number;
    onBytes: (n: number) => void;
  },
): Promise<{ seq: number; warnings: string[] }> {
  const id = manifest.recordingId;
  const relDir = `${RECORDINGS_DIR}/${id}`;
  const finalDir = lib.resolve(relDir);
  const staging = lib.resolve(`${RECORDINGS_DIR}/.pull-${id}-${randomBytes(4).toString('hex')}`);
  const warnings: string[] = [];
  try {
    const limiter = createLimiter(io.concurrency);
    const fetched = new Map<string, string>();
    // the first failure stops the other downloads; all settle before the staging folder goes
    const stop = new AbortController();
    let cause: unknown = null;
    const call = {
      signal: io.call.signal ? AbortSignal.any([io.call.signal, stop.signal]) : stop.signal,
    };
    const settled = await Promise.allSettled(
      manifest.files.filter(isNeeded).map((f) =>
        limiter
          .run(async () => {
            if (call.signal.aborted) {
              throw abortedError();
            }
            const dest =
              (f.role === 'video' || f.role === 'file') && f.libraryPath
                ? path.join(staging, 'rec', ...f.libraryPath.split('/'))
                : path.join(staging, 'meta', ...f.path.split('/'));
            await fs.mkdir(path.dirname(dest), { recursive: true });
            await io.retry(async () => {
              const hash = createHash('sha256');
              let size = 0;
              const body = await source.get(f.path, call);
              try {
                await pipeline(
                  Readable.from(
                    (async function* () {
                      for await (const chunk of body) {
                        hash.update(chunk);
                        size += chunk.length;
                        yield chunk;
                      }
                    })(),
                  ),
                  createWriteStream(dest),
                );
              } catch (e) {
                if (call.signal.aborted) {
                  throw abortedError();
                }
                // a connection that broke off mid-body: download the file again
                throw new AppError(
                  'UPLOAD_UNREACHABLE',
                  `The download of ${f.path} broke off: ${(e as Error).message}.`,
                  { retryable: true },
                );
              }
              const sha = hash.digest('hex');
              if (size !== f.sizeBytes || sha !== f.sha256) {
                throw new AppError(
                  'UPLOAD_VERIFY_FAILED',
                  `${f.path}: downloaded ${size} bytes hashing to ${sha}; the manifest says ` +
                    `${f.sizeBytes} bytes, ${f.sha256}. The submission is damaged.`,
                );
              }
              io.onBytes(size);
            });
            fetched.set(f.path, dest);
          })
          .catch((e: unknown) => {
            if (!stop.signal.aborted) {
              cause = e; // later failures are consequences of stopping the others
              stop.abort();
            }
            throw e;
          }),
      ),
    );
    if (settled.some((r) => r.status === 'rejected')) {
      throw cause;
    }
    const recordingFile = manifest.files.find((f) => f.role === 'recording');
    if (!recordingFile) {
      throw new AppError('PULL_INVALID', `${source.where}: the manifest lists no recording row.`);
    }
    const dump: RecordingDump = {
      recording: JSON.parse(await fs.readFile(fetched.get(recordingFile.path)!, 'utf8')) as DumpRow,
      tables: new Map(),
    };
    for (const f of manifest.files.filter((x) => x.role === 'table' && x.table)) {
      dump.tables.set(
        f.table!,
        parseJsonLines(await fs.readFile(fetched.get(f.path)!, 'utf8'), f.path),
      );
    }
    if (dump.recording.id !== id) {
      throw new AppError('PULL_INVALID', `${source.where}: the recording row is not ${id}.`);
    }
    await fs.mkdir(path.join(staging, 'rec'), { recursive: true });
    await fs.rename(path.join(staging, 'rec'), finalDir);
    let restored: RestoredRecording = { seq: 0, editIds: new Map() };
    try {
      lib.db.transaction(() => {
        restored = restoreRecording(lib.db, dump, relDir);
      })();
    } catch (e) {
      await fs.rm(finalDir, { recursive: true, force: true });
      throw e;
    }
    const stepsFile = manifest.files.find((f) => f.role === 'steps');
    if (stepsFile) {
      const submitted = JSON.stringify(
        JSON.parse(await fs.readFile(fetched.get(stepsFile.path)!, 'utf8')),
      );
      if (
        remapEditRefs(submitted, restored.editIds) !==
        JSON.stringify(effectiveSteps(lib, restored.seq))
      ) {
        warnings.push(
          'the steps with edits applied differ from the submitted steps/steps.json ' +
            `(made by cua-annotator ${manifest.toolVersion})`,
        );
      }
    }
    return { seq: restored.seq, warnings };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}
