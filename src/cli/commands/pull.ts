// `cua-annotator pull s3://bucket/prefix`: imports complete submissions into this library.
import type { PullItem } from '../../services/upload/pull';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { createProgress, errLine, out, outJson } from '../output';
import { formatMiB, openCliStore, resolveCliTarget, TARGET_HELP, TARGET_OPTIONS } from './upload';

const HELP = `Usage: cua-annotator pull s3://BUCKET/PREFIX [--since DATE] [--endpoint URL] [--region R]
                          [--path-style] [--profile NAME] [--json] [--library DIR]

Imports the submissions under PREFIX (<prefix>/<annotator>/<recording-id>/) into the library,
e.g. a reviewer's: each recording is reproduced exactly (same id, files with the same
checksums, the same steps, edits, labels and reviews). Only complete submissions are taken:
manifest.json present and every file it lists there with its size; every downloaded file is
checked against its SHA-256. Partial submissions and recordings already in the library are
skipped and reported.

Options:
  --since DATE     only submissions submitted at or after DATE (ISO 8601, e.g. 2026-05-01 or
                   2026-05-01T12:00:00Z)
${TARGET_HELP}
  --json           print a JSON summary
  --library DIR    library folder
  -h, --help       show this help

Exit code 2 when a submission is invalid or damaged.`;

/** The `pull` command. */
export const pullCommand: Command = defineCommand({
  name: 'pull',
  summary: 'import complete submissions from S3-compatible storage',
  help: HELP,
  options: {
    since: { type: 'string' },
    ...TARGET_OPTIONS,
    json: { type: 'boolean' },
  },
  run: async ({ values, positionals }) => {
    if (positionals.length !== 1 || !positionals[0]?.startsWith('s3://')) {
      throw new UsageError('pull takes one s3://BUCKET/PREFIX');
    }
    let sinceMs: number | undefined;
    if (values.since !== undefined) {
      sinceMs = Date.parse(values.since);
      if (Number.isNaN(sinceMs)) {
        throw new UsageError(`--since must be an ISO 8601 date (got "${values.since}")`);
      }
    }
    const url = positionals[0];
    // a pull imports, like `import`: a reviewer's first pull may create the library
    const items: PullItem[] = await withServices(
      values.library,
      async (services) => {
        const { target } = resolveCliTarget(services, { ...values, url });
        const store = openCliStore(target, values.profile);
        const progress = createProgress(100, Boolean(process.stderr.isTTY) && !values.json);
        try {
          return await services.pullSubmissions(store, target.prefix, {
            ...(sinceMs === undefined ? {} : { sinceMs }),
            onProgress: (p) =>
              progress.update(
                p.submissionsTotal ? Math.floor((p.submissionsDone / p.submissionsTotal) * 100) : 0,
                `${p.recordingId.slice(0, 8)} ${p.detail} ${formatMiB(p.bytesDone)}`,
              ),
          });
        } finally {
          progress.finish();
          store.close();
        }
      },
      { create: true },
    );
    if (values.json) {
      outJson({ source: url, items });
    } else {
      for (const i of items) {
        const id = i.recordingId.slice(0, 8);
        if (i.status === 'imported') {
          out(`imported ${id} from ${i.annotator} (${formatMiB(i.bytes)})`);
          for (const w of i.warnings) {
            out(`  warning: ${w}`);
          }
        } else if (i.status === 'invalid') {
          errLine(`invalid ${i.folder}: ${i.reason}`);
        } else {
          out(`skipped ${i.folder}: ${i.status}: ${i.reason}`);
        }
      }
      const n = items.filter((i) => i.status === 'imported').length;
      out(`pulled ${n} recording(s) from ${url}`);
    }
    return items.some((i) => i.status === 'invalid') ? 2 : 0;
  },
});
