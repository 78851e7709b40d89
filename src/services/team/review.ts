// The reviewer's side of the hub (docs/team-mode.md §13): `review next` leases the oldest waiting
// submission, downloads its bundle through the hub's presigned URLs (each file checked against
// the manifest's size and SHA-256) and restores it into the local library the way `pull` does,
// where every review feature works as usual; `review verdict` sends accept / reject / changes
// with a grade, feedback and the reviewer's edit log: the edits made in this library since the
// submission arrived.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HubLeased, HubOutput, HubTransfer } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';
import { findRecordingBasics, listEdits, resolveRecordingSeq } from '../../store';
import { getPull, insertPull } from '../../store/queries/uploads';
import type { Library } from '../library/library';
import { deleteRecording } from '../recordings';
import { MANIFEST_NAME, parseManifest } from '../upload/manifest';
import { importBundle } from '../upload/pull';
import { UPLOADS_STAGE_DIR } from '../upload/queue';
import { DEFAULT_RETRY_POLICY, withRetry } from '../upload/retry';
import type { HubCredentialStore } from './credential-store';
import { signedInClient } from './submit';

/** What the library remembers of a submission it took for review. */
export type ReviewRecord = {
  url: string;
  user: string;
  submissionId: number;
  recordingId: string;
  annotator: string;
  version: number;
  manifestSha256: string;
  /** The recording's last edit id once imported: the reviewer's edits come after it. */
  baseEditId: number;
  leaseExpiresAtMs: number;
};

/** Folder (relative to the library) of the review records, one JSON file per recording. */
export const HUB_REVIEWS_DIR = `${UPLOADS_STAGE_DIR}/hub-reviews`;

function recordFile(lib: Library, recordingId: string): string {
  return lib.resolve(`${HUB_REVIEWS_DIR}/${recordingId}.json`);
}

async function saveRecord(lib: Library, record: ReviewRecord): Promise<void> {
  const file = recordFile(lib, record.recordingId);
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temp, `${JSON.stringify(record, null, 2)}\n`);
  await fs.rename(temp, file);
}

async function loadRecord(lib: Library, recordingId: string): Promise<ReviewRecord | null> {
  try {
    return JSON.parse(await fs.readFile(recordFile(lib, recordingId), 'utf8')) as ReviewRecord;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return null;
    }
    throw e;
  }
}

function unreachable(t: HubTransfer, reason: string): AppError {
  return new AppError(
    'UPLOAD_UNREACHABLE',
    `cannot download ${t.path} from the hub's store: ${reason}`,
    { path: t.path, retryable: true },
    'Run review next again: the hub hands you the same submission while your lease lasts.',
  );
}

/** Streams one file of the hub's store from its presigned GET (UPLOAD_UNREACHABLE on failure). */
export async function downloadTransfer(
  t: HubTransfer,
  call: { signal?: AbortSignal },
): Promise<AsyncIterable<Uint8Array>> {
  let res: Response;
  try {
    res = await fetch(t.request.url, {
      headers: t.request.headers,
      redirect: 'error',
      ...(call.signal ? { signal: call.signal } : {}),
    });
  } catch (e) {
    const cause = (e as Error & { cause?: Error & { code?: string } }).cause;
    throw unreachable(t, cause?.code ?? (e as Error).message);
  }
  if (!res.ok || !res.body) {
    throw unreachable(t, `HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  }
  return res.body as AsyncIterable<Uint8Array>;
}

function lastEditId(lib: Library, seq: number): number {
  return listEdits(lib.db, seq).reduce((n, e) => Math.max(n, e.id), 0);
}

/** Takes the next submission from the hub's queue into this library (or the one this reviewer
 * already holds); null when nothing waits. */
export async function reviewNext(
  lib: Library,
  options: { concurrency?: number; now?: () => number; credentials?: HubCredentialStore } = {},
): Promise<HubLeased | null> {
  const now = options.now ?? Date.now;
  const { client, user } = await signedInClient(lib, options.credentials);
  const { submission } = await client.call('review:next', {});
  if (!submission) {
    return null;
  }
  const transfers = new Map(submission.files.map((f) => [f.path, f]));
  const present = findRecordingBasics(lib.db, submission.recording);
  if (present) {
    const pulled = getPull(lib.db, present.seq);
    if (!pulled) {
      throw new AppError(
        'INVALID_STATE',
        `recording ${submission.recording} is in this library but did not come from a hub or ` +
          'a pull: it is not replaced',
        { recording: submission.recording },
        'Review in another library (--library DIR), or delete the local copy first.',
      );
    }
    if (pulled.manifestSha256 === submission.manifestSha256) {
      // this version is here already (the lease was handed back after a crash): keep the edits
      const kept = await loadRecord(lib, submission.recording);
      if (!kept || kept.submissionId !== submission.id || kept.version !== submission.version) {
        await saveRecord(lib, {
          url: client.url,
          user,
          submissionId: submission.id,
          recordingId: submission.recording,
          annotator: submission.annotator,
          version: submission.version,
          manifestSha256: submission.manifestSha256,
          baseEditId: kept?.baseEditId ?? lastEditId(lib, present.seq),
          leaseExpiresAtMs: submission.leaseExpiresAtMs,
        });
      }
      return submission;
    }
    // an earlier version (its verdict is on the hub): the new one replaces it
    await deleteRecording(lib, submission.recording);
  }
  const manifestTransfer = transfers.get(MANIFEST_NAME);
  if (!manifestTransfer) {
    throw new AppError('PULL_INVALID', `the hub sent no ${MANIFEST_NAME} for ${submission.id}`);
  }
  const retry = <T>(op: () => Promise<T>) => withRetry(op, { policy: DEFAULT_RETRY_POLICY });
  const manifestBytes = await retry(async () => {
    const chunks: Buffer[] = [];
    for await (const c of await downloadTransfer(manifestTransfer, {})) {
      chunks.push(Buffer.from(c));
    }
    return Buffer.concat(chunks);
  });
  const sha = createHash('sha256').update(manifestBytes).digest('hex');
  if (sha !== submission.manifestSha256) {
    throw new AppError(
      'UPLOAD_VERIFY_FAILED',
      `the manifest of submission ${submission.id} hashes to ${sha}, the hub registered ` +
        submission.manifestSha256,
      { submission: submission.id },
      'Tell the hub’s admin: the stored submission was changed after it was registered.',
    );
  }
  const where = `${client.url} submission ${submission.id} v${submission.version}`;
  const manifest = parseManifest(manifestBytes.toString('utf8'), `${where} ${MANIFEST_NAME}`);
  if (manifest.recordingId !== submission.recording) {
    throw new AppError(
      'PULL_INVALID',
      `${where}: the manifest names recording ${manifest.recordingId}`,
    );
  }
  const result = await importBundle(
    lib,
    {
      where,
      get: (rel, call) => {
        const t = transfers.get(rel);
        if (!t) {
          throw new AppError('PULL_INVALID', `${where}: the hub sent no URL for ${rel}`);
        }
        return downloadTransfer(t, call);
      },
    },
    manifest,
    { retry, call: {}, concurrency: options.concurrency ?? 4, onBytes: () => undefined },
  );
  insertPull(lib.db, result.seq, {
    source: where,
    annotator: submission.annotator,
    manifestSha256: submission.manifestSha256,
    submittedAt: manifest.submittedAt,
    pulledAtMs: now(),
  });
  await saveRecord(lib, {
    url: client.url,
    user,
    submissionId: submission.id,
    recordingId: submission.recording,
    annotator: submission.annotator,
    version: submission.version,
    manifestSha256: submission.manifestSha256,
    baseEditId: lastEditId(lib, result.seq),
    leaseExpiresAtMs: submission.leaseExpiresAtMs,
  });
  return submission;
}

/** A verdict to send. */
export type VerdictInput = {
  verdict: 'accept' | 'reject' | 'changes';
  grade?: 'excellent' | 'good' | 'ok' | null;
  feedback?: string;
};

/** Sends the verdict on a recording this library took with {@link reviewNext}, with the edits
 * made here since (the reviewer's edit log, undone ones left out). */
export async function sendVerdict(
  lib: Library,
  recordingIdOrPrefix: string,
  input: VerdictInput,
  credentials?: HubCredentialStore,
): Promise<HubOutput<'review:verdict'> & { recording: string; edits: number }> {
  const { seq, id } = resolveRecordingSeq(lib.db, recordingIdOrPrefix);
  const record = await loadRecord(lib, id);
  if (!record) {
    throw new AppError(
      'HUB_LEASE_NOT_HELD',
      `recording ${id} was not taken for review from a hub in this library`,
      { recording: id },
      'Take a submission with `cua-annotator review next`, review it, then give the verdict.',
    );
  }
  const editLog = listEdits(lib.db, seq, ['active'])
    .filter((e) => e.id > record.baseEditId)
    .map((e) => ({ atMs: e.atMs, author: e.author, edit: e.edit }));
  const { client } = await signedInClient(lib, credentials);
  const result = await client.call('review:verdict', {
    id: record.submissionId,
    version: record.version,
    verdict: input.verdict,
    ...(input.grade !== undefined ? { grade: input.grade } : {}),
    ...(input.feedback !== undefined ? { feedback: input.feedback } : {}),
    editLog,
  });
  await fs.rm(recordFile(lib, id), { force: true });
  return { ...result, recording: id, edits: editLog.length };
}

/** The submissions this library holds for review (taken, verdict not sent yet). */
export async function listHeldReviews(lib: Library): Promise<ReviewRecord[]> {
  let names: string[];
  try {
    names = await fs.readdir(lib.resolve(HUB_REVIEWS_DIR));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return [];
    }
    throw e;
  }
  const records: ReviewRecord[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const record = await loadRecord(lib, name.slice(0, -'.json'.length)).catch(() => null);
    if (record) {
      records.push(record);
    }
  }
  return records;
}
