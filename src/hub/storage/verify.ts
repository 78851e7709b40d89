// Checks stored objects against a submission's manifest (docs/team-mode.md §9): each file's size
// first (cheap), then its SHA-256: the one the folder store took of the bytes it wrote (when the
// file is unchanged since), else read back from the store — or, where a later check of every
// SHA-256 follows (the intake), the MD5 an S3 store took of what it was sent (its ETag, after it
// checked the presigned Content-MD5). A bundle that fails is refused with INTEGRITY_FAILED
// naming every file that is missing, short or changed.
import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors';
import {
  MANIFEST_NAME,
  parseManifest,
  type ManifestFile,
  type SubmissionManifest,
} from '../../services/upload/manifest';
import { hashStream } from './folder-store';
import type { HubObjectInfo, HubObjectStore } from './object-store';

/** How many files of a bundle are checked at once. */
const VERIFY_CONCURRENCY = 4;

/** What is wrong with one file of a bundle. */
export type ObjectProblem = {
  path: string;
  problem: 'missing' | 'size' | 'sha256';
  expected: string | number;
  actual: string | number | null;
};

/** SHA-256 (hex) and size of a stored object, read back from the store. */
export async function hashObject(
  store: HubObjectStore,
  key: string,
): Promise<{ sha256: string; sizeBytes: number }> {
  return await hashStream(await store.get(key));
}

/** The problem of one stored object against its manifest entry, or null when it matches. */
export async function checkObject(
  store: HubObjectStore,
  key: string,
  entry: Pick<ManifestFile, 'path' | 'sizeBytes' | 'sha256'>,
): Promise<ObjectProblem | null> {
  const info = await store.stat(key);
  if (!info) {
    return { path: entry.path, problem: 'missing', expected: entry.sizeBytes, actual: null };
  }
  if (info.sizeBytes !== entry.sizeBytes) {
    return { path: entry.path, problem: 'size', expected: entry.sizeBytes, actual: info.sizeBytes };
  }
  // the hash the store took while writing it, else the object read back
  const sha256 = info.sha256 ?? (await hashObject(store, key)).sha256;
  return sha256 === entry.sha256
    ? null
    : { path: entry.path, problem: 'sha256', expected: entry.sha256, actual: sha256 };
}

// A listed object against its manifest entry: a problem, null when its size and MD5 match, or
// undefined when only its SHA-256 can tell (checkObject)
function checkListed(
  info: HubObjectInfo | undefined,
  entry: Pick<ManifestFile, 'path' | 'sizeBytes' | 'md5'>,
): ObjectProblem | null | undefined {
  if (!info) {
    return { path: entry.path, problem: 'missing', expected: entry.sizeBytes, actual: null };
  }
  if (info.sizeBytes !== entry.sizeBytes) {
    return { path: entry.path, problem: 'size', expected: entry.sizeBytes, actual: info.sizeBytes };
  }
  return entry.md5 !== undefined && info.md5 === entry.md5 ? null : undefined;
}

// the app's copy of the manifest when the stored one has its size and MD5, else null
function sentManifest(info: HubObjectInfo | undefined, text: string | undefined): Buffer | null {
  if (!info?.md5 || text === undefined) {
    return null;
  }
  const bytes = Buffer.from(text, 'utf8');
  const same =
    bytes.length === info.sizeBytes && createHash('md5').update(bytes).digest('hex') === info.md5;
  return same ? bytes : null;
}

async function readWhole(store: HubObjectStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await store.get(key)) {
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks);
}

/** A bundle that passed verification. */
export type VerifiedBundle = {
  manifest: SubmissionManifest;
  /** SHA-256 of manifest.json's bytes: the idempotency key of registerVersion. */
  manifestSha256: string;
  files: number;
  bytes: number;
};

/** Options of {@link verifyBundle}. */
export type VerifyBundleOptions = {
  /** Accept a file whose stored MD5 (an S3 ETag) equals the manifest's `md5` without reading
   * it back for its SHA-256. Only for a bundle whose every SHA-256 is checked later anyway (the
   * hub's intake, before any reviewer sees it). A file without either MD5, or with another
   * (a multipart or encrypting store's ETag), is read back as without this option. */
  md5Suffices?: boolean;
  /** With md5Suffices: the manifest's text as the app sent it, taken instead of reading the
   * stored manifest back when the listing shows it with this text's size and MD5 (the intake
   * reads the stored one and checks its SHA-256 against the registered one). */
  manifestText?: string;
};

/** Reads `<prefix>/manifest.json` from the store and checks every file it lists; throws
 * INTEGRITY_FAILED (details.problems) unless all are there with their size and SHA-256 (or,
 * with `md5Suffices`, their MD5). */
export async function verifyBundle(
  store: HubObjectStore,
  prefix: string,
  options: VerifyBundleOptions = {},
): Promise<VerifiedBundle> {
  const manifestKey = `${prefix}/${MANIFEST_NAME}`;
  // with md5Suffices: one listing gives every file's size and ETag (a request, not one a file)
  let listed: Map<string, HubObjectInfo> | null = null;
  if (options.md5Suffices) {
    listed = new Map();
    for await (const o of store.list(`${prefix}/`)) {
      listed.set(o.key, o);
    }
  }
  if (!(listed ? listed.has(manifestKey) : await store.stat(manifestKey))) {
    // registered before the manifest arrived (an interrupted submit): the app sends it again
    throw new AppError(
      'INTEGRITY_FAILED',
      `the submission in ${prefix} has no ${MANIFEST_NAME} yet`,
      {
        prefix,
        problems: [
          { path: MANIFEST_NAME, problem: 'missing', expected: 'the manifest', actual: null },
        ],
      },
      'Submit the recording again: the files that did not arrive are sent again.',
    );
  }
  const bytes = (listed && sentManifest(listed.get(manifestKey), options.manifestText)) || null;
  const manifestBytes = bytes ?? (await readWhole(store, manifestKey));
  const manifest = parseManifest(
    manifestBytes.toString('utf8'),
    `${store.description} ${manifestKey}`,
  );
  // a few files at a time: an object store answers each request after a round trip, and
  // hashing may read every byte back while the hub has other work
  const found: (ObjectProblem | null)[] = new Array<ObjectProblem | null>(manifest.files.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < manifest.files.length; i = next++) {
      const f = manifest.files[i]!;
      const key = `${prefix}/${f.path}`;
      const quick = listed ? checkListed(listed.get(key), f) : undefined;
      found[i] = quick === undefined ? await checkObject(store, key, f) : quick;
    }
  };
  await Promise.all(Array.from({ length: VERIFY_CONCURRENCY }, worker));
  const problems = found.filter((p): p is ObjectProblem => p !== null);
  if (problems.length) {
    throw new AppError(
      'INTEGRITY_FAILED',
      `the submission in ${prefix} does not match its manifest: ` +
        problems
          .slice(0, 5)
          .map((p) => `${p.path} (${p.problem})`)
          .join(', ') +
        (problems.length > 5 ? ` and ${problems.length - 5} more` : ''),
      { prefix, problems },
      'Submit the recording again: the files that arrived differ from what was sent.',
    );
  }
  return {
    manifest,
    manifestSha256: createHash('sha256').update(manifestBytes).digest('hex'),
    files: manifest.files.length,
    bytes: manifest.totals.bytes,
  };
}
