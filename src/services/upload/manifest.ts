// The submission manifest: a versioned list of every file of a submission with its size and
// SHA-256. It is written last, so its presence marks a complete submission.
import type { PlatformInfo } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { PiiAllowance } from '../privacy/policy';

/** `schema` field of every submission manifest. */
export const SUBMISSION_SCHEMA = 'cua-annotator/submission';
/** Manifest version this build writes and the newest it reads. */
export const SUBMISSION_SCHEMA_VERSION = 1;
/** File name of the manifest inside the submission folder. */
export const MANIFEST_NAME = 'manifest.json';

/** What a file of a submission is. */
export const FILE_ROLES = [
  'video',
  'file',
  'recording',
  'table',
  'steps',
  'keyframe',
  'agentnet',
  'extra',
] as const;
/** One of {@link FILE_ROLES}. */
export type FileRole = (typeof FILE_ROLES)[number];

/** One file of a submission. */
export type ManifestFile = {
  /** Path inside the submission folder (`/`-separated, relative). */
  path: string;
  sizeBytes: number;
  /** SHA-256 of the bytes, lower-case hex. */
  sha256: string;
  /** MD5 of the bytes, lower-case hex (team submissions): the hub presigns each PUT with it as
   * Content-MD5, so the store refuses other bytes and registration checks the ETag instead of
   * reading the file back; the SHA-256 stays the check of record (the hub's intake). */
  md5?: string;
  role: FileRole;
  /** video/file roles: where the file lives inside the recording's library folder. */
  libraryPath?: string;
  /** table role: the library table the rows belong to. */
  table?: string;
};

/** The manifest (`manifest.json`). */
export type SubmissionManifest = {
  schema: typeof SUBMISSION_SCHEMA;
  schemaVersion: number;
  recordingId: string;
  /** AgentNet episode id of the exports. */
  episodeId: string;
  task: string;
  platform: PlatformInfo;
  /** cua-annotator version that built the submission. */
  toolVersion: string;
  /** Library schema version (PRAGMA user_version) of the table dumps. */
  librarySchemaVersion: number;
  annotator: string;
  /** When the recording was created (ISO 8601). */
  createdAt: string;
  /** When the submission was completed, i.e. this manifest written (ISO 8601). */
  submittedAt: string;
  stepCount: number;
  /** Every file except the manifest itself. */
  files: ManifestFile[];
  totals: { files: number; bytes: number };
  /** Blocking PII findings the uploader let through with `--allow-pii` (who, when, which);
   * absent when none (services/privacy/policy.ts). */
  pii?: { allowed: PiiAllowance };
};

const SHA256_RE = /^[0-9a-f]{64}$/;
const MD5_RE = /^[0-9a-f]{32}$/;
const SEGMENT_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

// True for a relative `/`-separated path that cannot leave the folder it is joined to.
export function isSafeRelativePath(p: string): boolean {
  return (
    p.length > 0 &&
    p.length <= 1024 &&
    !p.startsWith('/') &&
    !p.includes('\\') &&
    !p.includes('\0') &&
    p.split('/').every((s) => s !== '' && s !== '.' && s !== '..')
  );
}

function invalid(where: string, problem: string): AppError {
  return new AppError('PULL_INVALID', `${where}: ${problem}`, { problem });
}

function str(o: Record<string, unknown>, k: string, where: string): string {
  const v = o[k];
  if (typeof v !== 'string') {
    throw invalid(where, `"${k}" must be a string`);
  }
  return v;
}

function num(o: Record<string, unknown>, k: string, where: string): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || !Number.isInteger(v)) {
    throw invalid(where, `"${k}" must be a non-negative integer`);
  }
  return v;
}

// Parses and validates a manifest read from storage (untrusted: paths must stay inside).
export function parseManifest(text: string, where: string): SubmissionManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw invalid(where, `not JSON (${(e as Error).message})`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalid(where, 'not a JSON object');
  }
  const o = raw as Record<string, unknown>;
  if (o.schema !== SUBMISSION_SCHEMA) {
    throw invalid(where, `"schema" is ${JSON.stringify(o.schema)}, not "${SUBMISSION_SCHEMA}"`);
  }
  const version = num(o, 'schemaVersion', where);
  if (version > SUBMISSION_SCHEMA_VERSION) {
    throw invalid(
      where,
      `schema version ${version} is newer than this cua-annotator reads ` +
        `(${SUBMISSION_SCHEMA_VERSION}); upgrade cua-annotator`,
    );
  }
  const recordingId = str(o, 'recordingId', where);
  const annotator = str(o, 'annotator', where);
  for (const [k, v] of [
    ['recordingId', recordingId],
    ['annotator', annotator],
  ] as const) {
    if (!SEGMENT_RE.test(v)) {
      throw invalid(where, `"${k}" ${JSON.stringify(v)} is not a valid id`);
    }
  }
  if (!Array.isArray(o.files)) {
    throw invalid(where, '"files" must be an array');
  }
  const seen = new Set<string>();
  const files = o.files.map((f, i): ManifestFile => {
    const w = `${where} files[${i}]`;
    if (!f || typeof f !== 'object') {
      throw invalid(w, 'not an object');
    }
    const e = f as Record<string, unknown>;
    const path = str(e, 'path', w);
    if (!isSafeRelativePath(path) || path === MANIFEST_NAME) {
      throw invalid(w, `unsafe path ${JSON.stringify(path)}`);
    }
    if (seen.has(path)) {
      throw invalid(w, `duplicate path ${path}`);
    }
    seen.add(path);
    const sha256 = str(e, 'sha256', w);
    if (!SHA256_RE.test(sha256)) {
      throw invalid(w, '"sha256" must be 64 lower-case hex digits');
    }
    const role = str(e, 'role', w) as FileRole;
    if (!FILE_ROLES.includes(role)) {
      throw invalid(w, `unknown role ${JSON.stringify(role)}`);
    }
    const out: ManifestFile = { path, sizeBytes: num(e, 'sizeBytes', w), sha256, role };
    if (e.md5 !== undefined) {
      const md5 = str(e, 'md5', w);
      if (!MD5_RE.test(md5)) {
        throw invalid(w, '"md5" must be 32 lower-case hex digits');
      }
      out.md5 = md5;
    }
    if (e.libraryPath !== undefined) {
      const lp = str(e, 'libraryPath', w);
      if (!isSafeRelativePath(lp)) {
        throw invalid(w, `unsafe libraryPath ${JSON.stringify(lp)}`);
      }
      out.libraryPath = lp;
    }
    if (e.table !== undefined) {
      const t = str(e, 'table', w);
      if (!/^[a-z_][a-z0-9_]*$/.test(t)) {
        throw invalid(w, `invalid table name ${JSON.stringify(t)}`);
      }
      out.table = t;
    }
    return out;
  });
  if (!o.platform || typeof o.platform !== 'object') {
    throw invalid(where, '"platform" must be an object');
  }
  const totals = o.totals as Record<string, unknown> | undefined;
  return {
    schema: SUBMISSION_SCHEMA,
    schemaVersion: version,
    recordingId,
    episodeId: str(o, 'episodeId', where),
    task: str(o, 'task', where),
    platform: o.platform as PlatformInfo,
    toolVersion: str(o, 'toolVersion', where),
    librarySchemaVersion: num(o, 'librarySchemaVersion', where),
    annotator,
    createdAt: str(o, 'createdAt', where),
    submittedAt: str(o, 'submittedAt', where),
    stepCount: num(o, 'stepCount', where),
    files,
    ...(o.pii && typeof o.pii === 'object' ? { pii: o.pii as { allowed: PiiAllowance } } : {}),
    totals: {
      files: totals && typeof totals.files === 'number' ? totals.files : files.length,
      bytes:
        totals && typeof totals.bytes === 'number'
          ? totals.bytes
          : files.reduce((n, f) => n + f.sizeBytes, 0),
    },
  };
}

// Serialises a manifest (stable key order, 2-space indent, trailing newline).
export function manifestText(m: SubmissionManifest): string {
  return `${JSON.stringify(m, null, 2)}\n`;
}
