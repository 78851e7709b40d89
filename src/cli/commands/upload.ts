// `cua-annotator upload`: sends recordings as verified submissions to S3-compatible storage,
// resuming interrupted uploads.
import { REVIEW_STATUSES, type ReviewStatus } from '../../shared/domain';
import {
  describeTarget,
  MIN_PART_SIZE_BYTES,
  openS3Store,
  resolveTarget,
  targetUrl,
  type Services,
} from '../../services/create-services';
import type { UploadProgress } from '../../services/upload/engine';
import type { ObjectStore } from '../../services/upload/object-store';
import type { UploadOutcome } from '../../services/upload/queue';
import type { ResolvedTarget, UploadTarget } from '../../services/upload/target';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { createProgress, errLine, out, outJson, type Progress } from '../output';

/** Target flags shared by upload, pull and export. */
export const TARGET_OPTIONS = {
  endpoint: { type: 'string' },
  region: { type: 'string' },
  'path-style': { type: 'boolean' },
  profile: { type: 'string' },
} as const;

/** Help lines of {@link TARGET_OPTIONS}. */
export const TARGET_HELP = `  --endpoint URL   S3 endpoint (else AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, else settings)
  --region R       signing region (else AWS_REGION / AWS_DEFAULT_REGION, else us-east-1)
  --path-style     path-style addressing (endpoint/bucket/key), for most non-AWS servers
  --profile NAME   AWS profile for credentials (else AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY,
                   then AWS_PROFILE / the default profile)`;

/** Opens the S3 store of a target with the standard AWS credential chain. */
export function openCliStore(target: UploadTarget, profile: string | undefined): ObjectStore {
  return openS3Store(target, { kind: 'aws-chain', ...(profile ? { profile } : {}) });
}

/** Resolves --to/--endpoint/--region/--path-style/--annotator against env and settings. */
export function resolveCliTarget(
  services: Services,
  values: {
    url?: string | undefined;
    endpoint?: string | undefined;
    region?: string | undefined;
    'path-style'?: boolean | undefined;
    annotator?: string | undefined;
  },
): ResolvedTarget {
  return resolveTarget(
    {
      url: values.url,
      endpoint: values.endpoint,
      region: values.region,
      forcePathStyle: values['path-style'] ? true : undefined,
      annotator: values.annotator,
    },
    process.env,
    services.uploadDefaults(),
  );
}

const MIB = 1024 * 1024;

/** Formats bytes as MiB with one decimal. */
export function formatMiB(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

const HELP = `Usage: cua-annotator upload <id...|--status S> [--to s3://BUCKET/PREFIX] [--annotator NAME]
                            [--endpoint URL] [--region R] [--path-style] [--profile NAME]
                            [--part-size MIB] [--concurrency N] [--verify etag|download]
                            [--part-md5] [--force] [--allow-pii] [--save] [--json]
                            [--library DIR]

Uploads recordings as submissions under <prefix>/<annotator>/<recording-id>/: the video, the
library files, the raw data and the steps (with edits) as JSON lines, keyframes and the AgentNet
exports, then manifest.json (every file with size and SHA-256) last. Large files go as multipart
uploads; every request carries the SHA-256 of its bytes in its signature (the server checks it),
completed parts are kept in the library, so an interrupted upload (Ctrl-C, crash, network)
resumes where it stopped when you run the same command again. Every object is verified (size,
SHA-256, ETag) before the recording counts as uploaded.

Defaults come from the library settings (save them with --save); endpoint, region and
credentials also from the standard AWS environment variables (AWS_ENDPOINT_URL,
AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE).

Options:
  --status S       every recording with this review status (${REVIEW_STATUSES.join(', ')})
  --to URL         target bucket and prefix, s3://BUCKET/PREFIX
  --annotator NAME annotator id: the folder below the prefix
${TARGET_HELP}
  --part-size MIB  multipart part size in MiB (≥ 5; default 8)
  --concurrency N  requests in flight (default 4)
  --verify MODE    etag (default: size, SHA-256 metadata and ETag) or download (read back)
  --part-md5       also send Content-MD5 with every part (servers that skip the SHA-256 check)
  --force          upload again even if already uploaded to this target
  --allow-pii      upload despite unresolved card/IBAN/secret findings of \`scan\` (refused
                   with PII_UNRESOLVED otherwise, before anything is sent; recorded in the
                   review history and the manifest's "pii" section); other kinds only warn
  --save           save --to, --endpoint, --region, --path-style and --annotator as defaults
  --json           print a JSON summary
  --library DIR    library folder
  -h, --help       show this help

Exit code 2 when any recording failed (its upload stays resumable; see \`cua-annotator uploads\`).`;

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`${flag} must be a positive integer (got "${value}")`);
  }
  return n;
}

function progressReporter(enabled: boolean): {
  onProgress: (p: UploadProgress) => void;
  finish: () => void;
} {
  let bar: Progress | null = null;
  let current = -1;
  return {
    onProgress: (p) => {
      if (!enabled) {
        return;
      }
      if (p.uploadId !== current) {
        bar?.finish();
        bar = createProgress(100, true);
        current = p.uploadId;
      }
      const pct = p.bytesTotal ? Math.floor((p.bytesDone / p.bytesTotal) * 100) : 0;
      bar?.update(
        pct,
        `${p.recordingId.slice(0, 8)} ${p.phase} ${formatMiB(p.bytesDone)}/${formatMiB(p.bytesTotal)}`,
      );
    },
    finish: () => bar?.finish(),
  };
}

/** The `upload` command. */
export const uploadCommand: Command = defineCommand({
  name: 'upload',
  summary: 'upload recordings to S3-compatible storage (verified, resumable)',
  help: HELP,
  options: {
    status: { type: 'string' },
    to: { type: 'string' },
    annotator: { type: 'string' },
    ...TARGET_OPTIONS,
    'part-size': { type: 'string' },
    concurrency: { type: 'string' },
    verify: { type: 'string' },
    'part-md5': { type: 'boolean' },
    force: { type: 'boolean' },
    'allow-pii': { type: 'boolean' },
    save: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  run: async ({ values, positionals }) => {
    if (Boolean(values.status) === Boolean(positionals.length)) {
      throw new UsageError('give recording ids or --status S (not both)');
    }
    if (values.status && !REVIEW_STATUSES.includes(values.status as ReviewStatus)) {
      throw new UsageError(
        `--status must be one of ${REVIEW_STATUSES.join(', ')} (got "${values.status}")`,
      );
    }
    if (values.verify && values.verify !== 'etag' && values.verify !== 'download') {
      throw new UsageError(`--verify must be etag or download (got "${values.verify}")`);
    }
    const partMiB = positiveInt('--part-size', values['part-size']);
    if (partMiB !== undefined && partMiB * MIB < MIN_PART_SIZE_BYTES) {
      throw new UsageError('--part-size must be at least 5 (MiB), the S3 minimum');
    }
    const concurrency = positiveInt('--concurrency', values.concurrency);
    const showProgress = Boolean(process.stderr.isTTY) && !values.json;

    const run = async (services: Services) => {
      const { uploads } = services;
      const resolved = resolveCliTarget(services, { ...values, url: values.to });
      if (!resolved.annotator) {
        throw new UsageError(
          'no annotator: pass --annotator NAME (or save one with --annotator NAME --save)',
        );
      }
      if (values.save) {
        services.saveUploadDefaults(resolved.target, resolved.annotator);
      }
      const ids = values.status
        ? services.listRecordings({ reviewStatus: values.status as ReviewStatus }).map((r) => r.id)
        : positionals;
      const enqueued = uploads.enqueue(ids, {
        target: resolved.target,
        annotator: resolved.annotator,
        force: values.force ?? false,
        allowPii: values['allow-pii'] ?? false,
      });
      for (const e of enqueued) {
        for (const w of e.warnings ?? []) {
          errLine(`warning: ${e.recordingId.slice(0, 8)} ${w}`);
        }
      }
      const skipped = enqueued.filter((e) => e.action === 'already-uploaded');
      const progress = progressReporter(showProgress);
      const unsubscribe = uploads.onProgress(progress.onProgress);
      // Ctrl-C pauses: the parts sent so far are kept and the next run resumes
      const toRun = enqueued.filter((e) => e.action !== 'already-uploaded');
      const onSigint = () => {
        errLine('\ninterrupted: pausing (run the same command again to resume)');
        for (const e of toRun) {
          uploads.pause(e.uploadId);
        }
      };
      // `on`, not `once`: see untilSignal in serve.ts (the listener stays until the run ends)
      process.on('SIGINT', onSigint);
      try {
        const outcomes: UploadOutcome[] = await uploads.run(toRun.map((e) => e.uploadId));
        return { resolved, outcomes, skipped };
      } finally {
        process.removeListener('SIGINT', onSigint);
        unsubscribe();
        progress.finish();
      }
    };
    // the CLI's flags configure the same upload service the UI's `uploads:*` methods use
    const { resolved, outcomes, skipped } = await withServices(values.library, run, {
      services: {
        uploads: {
          openStore: (target) => openCliStore(target, values.profile),
          engine: {
            ...(partMiB ? { partSizeBytes: partMiB * MIB } : {}),
            ...(concurrency ? { concurrency } : {}),
            ...(values.verify ? { verify: values.verify as 'etag' | 'download' } : {}),
            ...(values['part-md5'] ? { partContentMd5: true } : {}),
          },
        },
      },
    });
    if (values.json) {
      outJson({
        target: targetUrl(resolved.target),
        endpoint: resolved.target.endpoint,
        annotator: resolved.annotator,
        uploads: outcomes,
        skipped: skipped.map((s) => ({ recordingId: s.recordingId, reason: 'already uploaded' })),
      });
    } else {
      for (const s of skipped) {
        out(`skipped ${s.recordingId.slice(0, 8)}: already uploaded (use --force to send again)`);
      }
      for (const o of outcomes) {
        if (o.ok) {
          const r = o.result;
          const resumed =
            r.bytesSent < r.bytesTotal ? `, resumed: sent ${formatMiB(r.bytesSent)}` : '';
          out(
            `uploaded ${o.recordingId.slice(0, 8)} → ${r.location} (${r.objects} files, ` +
              `${formatMiB(r.bytesTotal)}, verified${resumed}; ${r.retries} retries, ` +
              `${(r.durationMs / 1000).toFixed(1)} s)`,
          );
        } else {
          errLine(`failed ${o.recordingId.slice(0, 8)}: [${o.code}] ${o.error}`);
        }
      }
      if (!outcomes.length && !skipped.length) {
        out(`nothing to upload to ${describeTarget(resolved.target)}`);
      }
    }
    return outcomes.every((o) => o.ok) ? 0 : 2;
  },
});
