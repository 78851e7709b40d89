// Where submissions go: endpoint, region, bucket, prefix, path style and the annotator folder,
// resolved from flags, the standard AWS environment variables and the library's saved defaults.
import { AppError } from '../../shared/errors';

/** An S3-compatible destination. Holds no secrets (credentials come from an UploadAuth). */
export type UploadTarget = {
  /** Endpoint URL, e.g. `http://127.0.0.1:8080`; null = the AWS endpoint of `region`. */
  endpoint: string | null;
  /** Signing region. Default `us-east-1`. */
  region: string;
  bucket: string;
  /** Key prefix without leading/trailing slashes; '' = the bucket root. */
  prefix: string;
  /** Path-style addressing (`endpoint/bucket/key`), needed by most non-AWS servers. */
  forcePathStyle: boolean;
};

/** Target defaults saved in the library (settings table, no secrets). */
export type UploadDefaults = Partial<UploadTarget> & {
  /** Annotator id used as the folder below the prefix. */
  annotator?: string;
};

/** Region used when neither a flag, the environment nor the settings name one. */
export const DEFAULT_REGION = 'us-east-1';

/** Annotator ids and recording ids become key segments: keep them boring. */
const SEGMENT_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

// Validates a name used as one key segment (annotator, recording id).
export function checkKeySegment(what: string, value: string): string {
  if (!SEGMENT_RE.test(value) || value.includes('..')) {
    throw new AppError(
      'UPLOAD_CONFIG',
      `${what} "${value}" is not usable as a storage folder name: use 1-64 letters, digits, ` +
        "'.', '_' or '-', starting with a letter or digit.",
    );
  }
  return value;
}

// Parses `s3://bucket/prefix` into bucket and prefix (prefix without surrounding slashes).
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!m) {
    throw new AppError(
      'UPLOAD_CONFIG',
      `"${url}" is not an S3 URL; write s3://BUCKET or s3://BUCKET/PREFIX.`,
    );
  }
  const bucket = m[1]!;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new AppError(
      'UPLOAD_CONFIG',
      `Bucket name "${bucket}" is invalid: 3-63 lower-case letters, digits, '.' or '-'.`,
    );
  }
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '').replace(/\/{2,}/g, '/');
  if (prefix.split('/').some((s) => s === '.' || s === '..')) {
    throw new AppError('UPLOAD_CONFIG', `Prefix "${prefix}" must not contain . or .. segments.`);
  }
  return { bucket, prefix };
}

/** The canonical `s3://bucket/prefix` of a target (the `uploads.target` column). */
export function targetUrl(target: Pick<UploadTarget, 'bucket' | 'prefix'>): string {
  return `s3://${target.bucket}${target.prefix ? `/${target.prefix}` : ''}`;
}

// Joins key segments with '/', skipping empty ones.
export function joinKey(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('/');
}

/** Where a submission lives: `<prefix>/<annotator>/<recording-id>` (no trailing slash). */
export function submissionKeyPrefix(
  target: Pick<UploadTarget, 'prefix'>,
  annotator: string,
  recordingId: string,
): string {
  return joinKey(
    target.prefix,
    checkKeySegment('Annotator', annotator),
    checkKeySegment('Recording id', recordingId),
  );
}

function checkEndpoint(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new AppError(
      'UPLOAD_CONFIG',
      `Endpoint "${endpoint}" is not a URL (e.g. http://host:port).`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('UPLOAD_CONFIG', `Endpoint "${endpoint}" must be http:// or https://.`);
  }
  return endpoint.replace(/\/+$/, '');
}

/** What a host knows about the target before resolution (flags as given, may be undefined). */
export type TargetInput = {
  /** `s3://bucket/prefix` from `--to` / `--out`. */
  url?: string | undefined;
  endpoint?: string | undefined;
  region?: string | undefined;
  /** `--path-style` given (true) or not (undefined). */
  forcePathStyle?: boolean | undefined;
  annotator?: string | undefined;
};

/** A resolved target plus where each value came from (for `--json` and error messages). */
export type ResolvedTarget = {
  target: UploadTarget;
  annotator: string | null;
  from: { endpoint: string; region: string; bucket: string };
};

// Resolves a target: flags, then AWS_* environment variables, then saved defaults.
export function resolveTarget(
  input: TargetInput,
  env: NodeJS.ProcessEnv,
  defaults: UploadDefaults | undefined,
): ResolvedTarget {
  const saved = defaults ?? {};
  let bucket: string | undefined;
  let prefix = '';
  let bucketFrom = 'settings';
  if (input.url) {
    ({ bucket, prefix } = parseS3Url(input.url));
    bucketFrom = 'flag';
  } else if (saved.bucket) {
    bucket = saved.bucket;
    prefix = saved.prefix ?? '';
  }
  if (!bucket) {
    throw new AppError(
      'UPLOAD_CONFIG',
      'No upload target: pass --to s3://BUCKET/PREFIX (or save one with `cua-annotator upload ' +
        '--to s3://BUCKET/PREFIX --save`).',
    );
  }
  // AWS_ENDPOINT_URL_S3 beats AWS_ENDPOINT_URL, as in the AWS SDKs and CLI
  const envEndpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const endpointRaw = input.endpoint ?? envEndpoint ?? saved.endpoint ?? null;
  const endpointFrom = input.endpoint
    ? 'flag'
    : envEndpoint
      ? env.AWS_ENDPOINT_URL_S3
        ? 'AWS_ENDPOINT_URL_S3'
        : 'AWS_ENDPOINT_URL'
      : saved.endpoint
        ? 'settings'
        : 'aws';
  const envRegion = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  const region = input.region ?? envRegion ?? saved.region ?? DEFAULT_REGION;
  const regionFrom = input.region
    ? 'flag'
    : envRegion
      ? env.AWS_REGION
        ? 'AWS_REGION'
        : 'AWS_DEFAULT_REGION'
      : saved.region
        ? 'settings'
        : 'default';
  const annotator = input.annotator ?? saved.annotator ?? null;
  return {
    target: {
      endpoint: endpointRaw === null ? null : checkEndpoint(endpointRaw),
      region,
      bucket,
      prefix,
      forcePathStyle: input.forcePathStyle ?? saved.forcePathStyle ?? false,
    },
    annotator: annotator === null ? null : checkKeySegment('Annotator', annotator),
    from: { endpoint: endpointFrom, region: regionFrom, bucket: bucketFrom },
  };
}

/** Human description of a target for messages: `s3://b/p at http://127.0.0.1:8080`. */
export function describeTarget(target: UploadTarget): string {
  return `${targetUrl(target)} at ${target.endpoint ?? `AWS (${target.region})`}`;
}
