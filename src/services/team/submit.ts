// `submit`: sends recordings to the team hub as submissions (docs/team-mode.md §13). For each
// recording: the checks (docs/quality.md) and the PII policy run first, as for `upload`; the
// submission bundle (the upload bundle: video, dump, steps with edits, keyframes, manifest) is
// staged in the library; the hub plans the upload from the manifest (presigned PUTs for the
// files its store lacks); the files go straight to the store, streamed from disk; then the hub
// verifies them against the manifest and registers the version. The manifest is kept with the
// staged bundle, so a rerun after a crash sends the same bytes to the same keys: only what is
// missing, and the hub registers nothing twice.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { HubOutput, HubTransfer } from '../../shared/contract/hub';
import { AppError, isAppError } from '../../shared/errors';
import { getRecording, resolveRecordingSeq, setTeamTaskId } from '../../store';
import { teamTaskIdOf } from '../../shared/tasks-file';
import type { Library } from '../library/library';
import { enforcePiiPolicy, recordAllowance } from '../privacy/policy';
import { textRedactorOf } from '../privacy/text-redaction';
import { checkRecordingInLibrary } from '../quality/check-service';
import { buildBundle, type Bundle } from '../upload/bundle';
import {
  MANIFEST_NAME,
  SUBMISSION_SCHEMA,
  SUBMISSION_SCHEMA_VERSION,
  manifestText,
  type SubmissionManifest,
} from '../upload/manifest';
import { UPLOADS_STAGE_DIR } from '../upload/queue';
import { isStorageFullAnswer, s3ErrorCode } from '../upload/storage-full';
import { createHubClient, type HubClient } from './client';
import { credentialStoreOf, type HubCredentialStore } from './credential-store';

/** Options of {@link submitToHub}. */
export type SubmitOptions = {
  /** Version written into the manifest. */
  appVersion: string;
  /** Submit despite unresolved blocking PII findings (recorded, as for upload). */
  allowPii?: boolean;
  /** Include keyframe images (decoded from the video when not stored). Default true. */
  includeKeyframes?: boolean;
  /** Warnings of the checks and the PII policy. */
  onWarning?: (line: string) => void;
  /** Clock (epoch ms). */
  now?: () => number;
  /** Where the sign-in is kept; default the file beside the library. */
  credentials?: HubCredentialStore;
  /** Link every recording to this hub task first (`submit --task-id`; docs/team-mode.md
   * §16); without it a recording made with `record --task-id` carries its own. */
  taskId?: number;
};

/** What one recording's submit did. */
export type SubmitResult = {
  id: number;
  recording: string;
  version: number;
  status: HubOutput<'submissions:register'>['status'];
  /** False when the hub had this bundle already (a rerun). */
  isNew: boolean;
  /** Files sent this time (0 on a rerun of a finished submit). */
  filesSent: number;
  bytesSent: number;
};

/** Where a recording's hub submission is staged, relative to the library. */
export function hubStageDir(recordingId: string): string {
  return `${UPLOADS_STAGE_DIR}/hub-${recordingId}`;
}

/** The staged manifest (kept with the bundle so a rerun sends the same bytes). */
const STAGED_MANIFEST = '.hub-manifest.json';

// SHA-256 (the manifest's check of record) and MD5 (the hub presigns each PUT with it as
// Content-MD5: the store refuses other bytes, and the hub checks the ETag instead of reading
// the file back) in one read
async function fileDigest(
  file: string,
): Promise<{ sha256: string; md5: string; sizeBytes: number }> {
  const sha256 = createHash('sha256');
  const md5 = createHash('md5');
  let sizeBytes = 0;
  for await (const chunk of createReadStream(file)) {
    sha256.update(chunk as Buffer);
    md5.update(chunk as Buffer);
    sizeBytes += (chunk as Buffer).length;
  }
  return { sha256: sha256.digest('hex'), md5: md5.digest('hex'), sizeBytes };
}

function bundleFilePath(lib: Library, p: string): string {
  return path.isAbsolute(p) ? p : lib.resolve(p);
}

// The bundle's manifest: the staged one when it belongs to this bundle, else built (every file
// hashed) and staged (`fresh`: its bundle cannot be in the hub's store yet).
async function manifestOf(
  lib: Library,
  bundle: Bundle,
  stageDir: string,
  input: { annotator: string; appVersion: string; nowMs: number; pii: unknown },
): Promise<{ text: string; fresh: boolean }> {
  const file = path.join(stageDir, STAGED_MANIFEST);
  try {
    const staged = JSON.parse(await fs.readFile(file, 'utf8')) as {
      fingerprint?: unknown;
      annotator?: unknown;
      text?: unknown;
    };
    if (
      staged.fingerprint === bundle.fingerprint &&
      staged.annotator === input.annotator &&
      typeof staged.text === 'string'
    ) {
      return { text: staged.text, fresh: false };
    }
  } catch {
    // none yet: build it
  }
  const rec = getRecording(lib.db, bundle.recordingId);
  const files = [];
  let bytes = 0;
  for (const f of bundle.files) {
    const d = await fileDigest(bundleFilePath(lib, f.path));
    bytes += d.sizeBytes;
    files.push({
      path: f.relKey,
      sizeBytes: d.sizeBytes,
      sha256: d.sha256,
      md5: d.md5,
      role: f.role,
      ...(f.libraryPath ? { libraryPath: f.libraryPath } : {}),
      ...(f.table ? { table: f.table } : {}),
    });
  }
  const manifest: SubmissionManifest = {
    schema: SUBMISSION_SCHEMA,
    schemaVersion: SUBMISSION_SCHEMA_VERSION,
    recordingId: rec.id,
    episodeId: bundle.episodeId,
    // text redactions (docs/privacy.md §3): the task leaves redacted, as in an upload
    task: textRedactorOf(lib, rec.seq).string(rec.task),
    platform: rec.platform,
    toolVersion: input.appVersion,
    librarySchemaVersion: bundle.librarySchemaVersion,
    annotator: input.annotator,
    createdAt: new Date(rec.createdAtMs).toISOString(),
    submittedAt: new Date(input.nowMs).toISOString(),
    stepCount: bundle.stepCount,
    files,
    totals: { files: files.length, bytes },
    ...(input.pii ? { pii: { allowed: input.pii as never } } : {}),
  };
  const text = manifestText(manifest);
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(
    temp,
    JSON.stringify({ fingerprint: bundle.fingerprint, annotator: input.annotator, text }),
  );
  await fs.rename(temp, file);
  return { text, fresh: true };
}

/** PUTs one file to its presigned URL, streamed from disk (or the manifest's text); the store's
 * refusal as a coded error (INTEGRITY_FAILED naming the file when its bytes are not the ones the
 * manifest describes, STORAGE_FULL, STORAGE_UNREACHABLE). */
export async function putFile(
  transfer: HubTransfer,
  body: { file: string } | { text: string },
): Promise<void> {
  const { request } = transfer;
  let res: Response;
  try {
    res = await fetch(request.url, {
      method: 'PUT',
      headers: { ...request.headers, 'content-length': String(transfer.sizeBytes) },
      body:
        'text' in body
          ? body.text
          : (Readable.toWeb(createReadStream(body.file)) as ReadableStream<Uint8Array>),
      duplex: 'half',
      redirect: 'error',
    });
  } catch (e) {
    const cause = (e as Error & { cause?: Error & { code?: string } }).cause;
    throw new AppError(
      'STORAGE_UNREACHABLE',
      `cannot send ${transfer.path} to the hub's store: ${cause?.code ?? (e as Error).message}`,
      { path: transfer.path, retryable: true },
      'Check the network and submit again: files already sent are not sent again.',
    );
  }
  const text = await res.text();
  if (!res.ok) {
    let code: string | undefined;
    let message = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
      code = parsed.error?.code;
      message = parsed.error?.message ?? message;
    } catch {
      // S3 answers XML: its code and message
      const s3Code = s3ErrorCode(text);
      const s3Message = /<Message>([^<]{0,300})<\/Message>/.exec(text)?.[1];
      message = s3Code ? `${s3Code}${s3Message ? `: ${s3Message}` : ''}` : message;
    }
    if (s3ErrorCode(text) === 'BadDigest') {
      // the bytes differ from the MD5 the manifest gave (signed into the URL as Content-MD5)
      throw new AppError(
        'INTEGRITY_FAILED',
        `the hub's store refused ${transfer.path}: its bytes are not the ones its manifest ` +
          `describes (${message})`,
        {
          path: transfer.path,
          status: res.status,
          problems: [{ path: transfer.path, problem: 'md5', expected: 'the manifest’s MD5' }],
        },
        'A file of the prepared bundle changed after its manifest was made: submit again; if ' +
          'it is refused again, check the disk of the library.',
      );
    }
    // the hub's folder route answers JSON with a code; S3 answers XML with its own
    const full = code === 'STORAGE_FULL' || isStorageFullAnswer(res.status, s3ErrorCode(text));
    throw new AppError(
      full ? 'STORAGE_FULL' : 'STORAGE_UNREACHABLE',
      `the hub's store refused ${transfer.path} (HTTP ${res.status}): ${message}`,
      { path: transfer.path, status: res.status },
      full
        ? 'The hub’s storage is full: ask the hub’s admin to make room, then submit again.'
        : 'Submit again (files already sent are not sent again); if it keeps failing, tell ' +
            'the hub’s admin.',
    );
  }
}

function checkSummaryOf(lib: Library, id: string): Record<string, unknown> {
  const result = checkRecordingInLibrary(lib, id);
  const errors = result.problems.filter((p) => p.severity === 'error');
  return {
    ok: result.ok,
    errors: errors.length,
    warnings: result.problems.length - errors.length,
    codes: [...new Set(result.problems.map((p) => p.code))],
  };
}

/** The team client of the library's stored sign-in. */
export async function signedInClient(
  lib: Library,
  credentials?: HubCredentialStore,
): Promise<{ client: HubClient; user: string }> {
  const store = credentialStoreOf(credentials ?? lib.dir);
  const creds = await store.load();
  return {
    client: createHubClient({ url: creds.url, token: creds.token, client: store.client }),
    user: creds.user,
  };
}

/** Submits recordings (ids or unique prefixes) to the hub this library is signed in to. */
export async function submitToHub(
  lib: Library,
  ids: readonly string[],
  options: SubmitOptions,
): Promise<SubmitResult[]> {
  const now = options.now ?? Date.now;
  const { client, user } = await signedInClient(lib, options.credentials);
  const fullIds = ids.map((i) => resolveRecordingSeq(lib.db, i).id);
  if (options.taskId !== undefined) {
    // the task must exist (NOT_FOUND otherwise) before the recordings are linked to it
    await client.call('tasks:get', { id: options.taskId });
    for (const id of fullIds) {
      const rec = getRecording(lib.db, id);
      if (teamTaskIdOf(rec.sourceMetadata) !== options.taskId) {
        setTeamTaskId(lib.db, rec.seq, options.taskId, now());
      }
    }
  }
  // the PII policy for all before anything is sent (PII_UNRESOLVED refuses the whole call)
  const decisions = enforcePiiPolicy(lib, fullIds, {
    action: 'upload',
    allowPii: options.allowPii,
    who: user,
    record: false,
    now,
  });
  const results: SubmitResult[] = [];
  for (const decision of decisions) {
    const id = decision.id;
    for (const w of decision.warnings) {
      options.onWarning?.(`${id.slice(0, 8)} ${w}`);
    }
    const checkSummary = checkSummaryOf(lib, id);
    if (!checkSummary.ok) {
      options.onWarning?.(
        `${id.slice(0, 8)} the checks found ${String(checkSummary.errors)} error(s) ` +
          `(${(checkSummary.codes as string[]).join(', ')}); see \`cua-annotator check ${id}\``,
      );
    }
    const taskId = teamTaskIdOf(getRecording(lib.db, id).sourceMetadata);
    const stageDir = lib.resolve(hubStageDir(id));
    const bundle = await buildBundle(lib, id, stageDir, {
      appVersion: options.appVersion,
      includeKeyframes: options.includeKeyframes ?? true,
    });
    const { text, fresh } = await manifestOf(lib, bundle, stageDir, {
      annotator: user,
      appVersion: options.appVersion,
      nowMs: now(),
      pii: decision.allowance,
    });
    const byKey = new Map(bundle.files.map((f) => [f.relKey, f]));
    let filesSent = 0;
    let bytesSent = 0;
    const send = async (resend?: string[]) => {
      const plan = await client.call('submissions:plan-upload', {
        manifest: text,
        ...(resend ? { resend } : {}),
        // a manifest made now names a prefix nothing was sent to: the hub need not list it
        ...(fresh && !resend ? { fresh: true } : {}),
      });
      for (const t of plan.uploads) {
        if (t.path === MANIFEST_NAME) {
          await putFile(t, { text });
        } else {
          const f = byKey.get(t.path);
          if (!f) {
            throw new AppError('INTERNAL', `the hub asked for ${t.path}, not in the bundle`);
          }
          await putFile(t, { file: bundleFilePath(lib, f.path) });
        }
        filesSent += 1;
        bytesSent += t.sizeBytes;
      }
      return plan;
    };
    const plan = await send();
    const register = () =>
      client.call('submissions:register', {
        recording: plan.recording,
        manifestSha256: plan.manifestSha256,
        manifest: text,
        checkSummary,
        piiSummary: decision.allowance ? { allowed: decision.allowance } : {},
        ...(taskId === null ? {} : { taskId }),
      });
    let registered: HubOutput<'submissions:register'>;
    try {
      registered = await register();
    } catch (e) {
      // a file changed or lost on the way: send those again, once
      const problems = isAppError(e, 'INTEGRITY_FAILED') ? e.details?.problems : undefined;
      if (!Array.isArray(problems) || !problems.length) {
        throw e;
      }
      await send(problems.map((p) => String((p as { path?: unknown }).path)));
      registered = await register();
    }
    if (decision.allowance && registered.isNew) {
      recordAllowance(lib, id, 'upload', decision.allowance, now());
    }
    results.push({
      id: registered.id,
      recording: registered.recording,
      version: registered.version,
      status: registered.status,
      isNew: registered.isNew,
      filesSent,
      bytesSent,
    });
  }
  return results;
}

/** The signed-in annotator's submissions with status, grade, feedback and reviewer (`sync`). */
export async function syncFromHub(
  lib: Library,
  credentials?: HubCredentialStore,
): Promise<HubOutput<'submissions:mine'>> {
  const { client } = await signedInClient(lib, credentials);
  return await client.call('submissions:mine', {});
}

/** Every submission with its verdicts and edit logs (admins: `sync --all`). */
export async function listHubSubmissions(lib: Library): Promise<HubOutput<'submissions:list'>> {
  const { client } = await signedInClient(lib);
  return await client.call('submissions:list', {});
}
