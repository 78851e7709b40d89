// A submission's way into the hub (docs/team-mode.md §9–§10): the app sends the bundle's
// manifest, gets a presigned upload URL for each file the store does not hold yet (so a resumed
// submit sends only what is missing), PUTs the bytes straight to the store, then asks the hub
// to register it: the hub checks every stored file against the manifest and registers the
// version, idempotently by the manifest's SHA-256. Each presigned PUT carries the file's MD5 from
// the manifest as Content-MD5 where the manifest has one (S3 refuses other bytes).
import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors';
import { MANIFEST_NAME, parseManifest } from '../../services/upload/manifest';
import type { HubRootDb } from '../db';
import {
  checkObjectKey,
  verifyBundle,
  type HubObjectStore,
  type PresignedRequest,
} from '../storage';
import { registerVersion, type QueueActor, type RegisteredVersion } from './queue';
import { summarizeBundle } from './version-summary';

/** Where a bundle's files live: one folder per (annotator, recording, manifest), so the same
 * bytes sent again land on the same keys and every version keeps its own files. */
export function bundlePrefix(annotator: string, recordingId: string, manifestSha256: string) {
  return checkObjectKey(`${annotator}/${recordingId}/${manifestSha256}`);
}

/** One file the app has to upload. */
export type PlannedUpload = { path: string; sizeBytes: number; request: PresignedRequest };

/** What the app does next for a bundle. */
export type UploadPlan = {
  recordingId: string;
  manifestSha256: string;
  prefix: string;
  /** Files (and last the manifest) still to send; the others are in the store already. */
  uploads: PlannedUpload[];
};

/** Plans the upload of a bundle from its manifest's text: presigned URLs for every file the
 * store lacks (or holds with another size), and for the paths in `resend` (files a failed
 * verification named); the manifest itself last. */
export async function planUpload(
  store: HubObjectStore,
  input: {
    annotator: QueueActor;
    manifestText: string;
    resend?: readonly string[];
    /** The app made the manifest just now: its prefix (named by the manifest's SHA-256) holds
     * nothing yet, so the store is not listed. A wrong claim only costs the app a resend. */
    fresh?: boolean;
  },
): Promise<UploadPlan> {
  const manifest = parseManifest(input.manifestText, 'the submitted manifest');
  const manifestSha256 = createHash('sha256').update(input.manifestText).digest('hex');
  const prefix = bundlePrefix(input.annotator.name, manifest.recordingId, manifestSha256);
  const uploads: PlannedUpload[] = [];
  const resend = new Set(input.resend ?? []);
  // what the store holds under the bundle's prefix, in one listing (not a request per file)
  const held = new Map<string, number>();
  if (!input.fresh) {
    for await (const o of store.list(`${prefix}/`)) {
      held.set(o.key, o.sizeBytes);
    }
  }
  for (const f of manifest.files) {
    const key = `${prefix}/${f.path}`;
    const have = resend.has(f.path) ? undefined : held.get(key);
    if (have !== f.sizeBytes) {
      uploads.push({
        path: f.path,
        sizeBytes: f.sizeBytes,
        request: await store.presignPut(key, {
          sizeBytes: f.sizeBytes,
          ...(f.md5 ? { md5Hex: f.md5 } : {}),
        }),
      });
    }
  }
  const manifestBytes = Buffer.byteLength(input.manifestText);
  if (held.get(`${prefix}/${MANIFEST_NAME}`) !== manifestBytes || uploads.length) {
    uploads.push({
      path: MANIFEST_NAME,
      sizeBytes: manifestBytes,
      request: await store.presignPut(`${prefix}/${MANIFEST_NAME}`, {
        sizeBytes: manifestBytes,
        md5Hex: createHash('md5').update(input.manifestText).digest('hex'),
      }),
    });
  }
  return { recordingId: manifest.recordingId, manifestSha256, prefix, uploads };
}

/** Verifies the uploaded bundle of `manifestSha256` against its manifest and registers it as a
 * version of the annotator's submission of that recording. A bundle that fails (a file missing,
 * short or changed, a manifest that is not the one named) is refused with INTEGRITY_FAILED and
 * nothing is registered; the same bundle registered again returns its version (isNew false).
 * With `awaitIntake` a file whose stored MD5 matches the manifest's is not read back: the
 * intake checks its SHA-256 before anyone reviews it. */
export async function registerUploaded(
  db: HubRootDb,
  store: HubObjectStore,
  input: {
    annotator: QueueActor;
    recordingId: string;
    manifestSha256: string;
    checkSummary?: Record<string, unknown>;
    piiSummary?: Record<string, unknown>;
    /** A job runner runs the version's intake before it joins the review queue. */
    awaitIntake?: boolean;
    /** The manifest's text as the app planned it (verifyBundle's manifestText). */
    manifestText?: string;
  },
): Promise<RegisteredVersion> {
  const prefix = bundlePrefix(input.annotator.name, input.recordingId, input.manifestSha256);
  // with a job layer every version's intake re-hashes every file (SHA-256) before a reviewer
  // sees it, and refuses a mismatch: here the store's MD5 of what it took (S3 checked each PUT's
  // presigned Content-MD5) then suffices, and S3 sends nothing back. Without one this is the
  // only check: the SHA-256 of every file.
  const bundle = await verifyBundle(store, prefix, {
    md5Suffices: input.awaitIntake === true,
    ...(input.manifestText !== undefined ? { manifestText: input.manifestText } : {}),
  });
  if (
    bundle.manifestSha256 !== input.manifestSha256 ||
    bundle.manifest.recordingId !== input.recordingId
  ) {
    throw new AppError(
      'INTEGRITY_FAILED',
      `the manifest stored in ${prefix} is not the one named (SHA-256 ${bundle.manifestSha256}, ` +
        `recording ${bundle.manifest.recordingId})`,
      { prefix, manifestSha256: bundle.manifestSha256 },
      'Submit the recording again: its manifest was changed on the way.',
    );
  }
  // the dashboard's summary of this version (migration 16), written in the registration's
  // transaction; also on a retry that finds the version registered without it
  const stats = await summarizeBundle(store, prefix, bundle.manifest);
  return await registerVersion(db, {
    annotator: input.annotator,
    recordingId: input.recordingId,
    task: bundle.manifest.task,
    manifestSha256: input.manifestSha256,
    objectPrefix: prefix,
    checkSummary: { files: bundle.files, bytes: bundle.bytes, ...input.checkSummary },
    piiSummary: input.piiSummary ?? (bundle.manifest.pii ? { allowed: bundle.manifest.pii } : {}),
    ...(input.awaitIntake ? { awaitIntake: true } : {}),
    stats,
  });
}
