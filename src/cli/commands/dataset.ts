// `dataset build|status|list`: dataset releases built on the team hub from its accepted
// submissions (docs/jobs.md §H), by an admin signed in with `login`.
import {
  copyHubDatasetToStore,
  downloadHubDataset,
  hubDatasetStatus,
  listHubDatasets,
  startHubDataset,
} from '../../services/create-services';
import {
  HUB_DATASET_FORMATS,
  HUB_SUBMISSION_STATUSES,
  type HubDatasetBuild,
} from '../../shared/contract/hub';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { withServices } from '../context';
import { createProgress, out, outJson } from '../output';
import { formatMiB, openCliStore, resolveCliTarget, TARGET_HELP, TARGET_OPTIONS } from './upload';

const HELP = `Usage: cua-annotator dataset build --format F [--status S]... [--since DATE] [--until DATE]
                                   [--os OS]... [--tag TAG]... [--out DIR|s3://BUCKET/PREFIX]
                                   [--detach] [--json]
       cua-annotator dataset status <id> [--out DIR|s3://BUCKET/PREFIX] [--json]
       cua-annotator dataset list [--json]
       (each with [--library DIR]: the library signed in to the hub, cua-annotator login)

Dataset releases built by the team hub's workers from its submissions (admins only).

dataset build   selects the submissions (--status, default accepted; --since/--until: the date
                their current version was submitted, YYYY-MM-DD or ISO 8601, until excluded;
                --os windows|mac|linux; --tag: a tag of the hub task they were recorded for),
                exports each as \`cua-annotator export --format F\` would (one job per
                submission), then merges them in submission order under the hub's store
                (_builds/<id>/out/) with manifest.json (every file's size and SHA-256) and
                datasheet.json (counts by OS, steps mean and histogram, actions mix). The same
                submissions and format give the same bytes. It waits with a progress bar
                unless --detach; with --out DIR it then downloads the dataset into DIR (each
                file checked against the manifest); with --out s3://BUCKET/PREFIX it copies
                it there (checked the same way, each object verified, manifest.json last).
dataset status  a build's progress; with --out a finished build is downloaded or copied.
dataset list    the latest builds.

Formats: ${HUB_DATASET_FORMATS.join(', ')}.
--json: {"build","status","submissions","manifest"} (+ done, failed, prefix, …); list:
{"builds":[…]}.

S3 options for --out s3://… (credentials from the standard AWS chain):
${TARGET_HELP}

Exit code 0 when the build is done (or detached), 1 when it failed, 2 on a usage error or when
the hub could not be reached.`;

const POLL_MS = 500;

function parseDate(flag: string, s: string | undefined): number | undefined {
  if (s === undefined) {
    return undefined;
  }
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
  if (!Number.isFinite(ms)) {
    throw new UsageError(`${flag} takes a date (YYYY-MM-DD or ISO 8601), got "${s}"`);
  }
  return ms;
}

function view(b: HubDatasetBuild) {
  return {
    build: b.build,
    status: b.status,
    submissions: b.submissions,
    manifest: b.manifest,
    done: b.done,
    failed: b.failed,
    format: b.format,
    prefix: b.prefix,
    error: b.error,
    createdBy: b.createdBy,
    createdAtMs: b.createdAtMs,
    finishedAtMs: b.finishedAtMs,
  };
}

function line(b: HubDatasetBuild): string {
  return (
    `build ${b.build} ${b.status}: ${b.done}/${b.submissions} exported` +
    (b.failed ? `, ${b.failed} left out` : '') +
    ` (${b.format})` +
    (b.manifest ? ` manifest ${b.manifest.slice(0, 12)} in ${b.prefix}` : '') +
    (b.error ? ` — ${b.error}` : '')
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `dataset` command. */
export const datasetCommand: Command = {
  name: 'dataset',
  summary: 'build dataset releases on the team hub (admins): build, status, list',
  help: HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, {
      format: { type: 'string' },
      status: { type: 'string', multiple: true },
      since: { type: 'string' },
      until: { type: 'string' },
      os: { type: 'string', multiple: true },
      tag: { type: 'string', multiple: true },
      out: { type: 'string' },
      detach: { type: 'boolean' },
      json: { type: 'boolean' },
      ...TARGET_OPTIONS,
    });
    if (values.help) {
      out(HELP);
      return 0;
    }
    const [sub, ...rest] = positionals;
    return await withServices(
      values.library,
      async (services) => {
        const lib = services.lib;
        const finish = async (b: HubDatasetBuild): Promise<number> => {
          let downloaded: { files: number; bytes: number } | null = null;
          if (b.status === 'done' && values.out) {
            const bar = createProgress(
              b.submissions,
              Boolean(process.stderr.isTTY) && !values.json,
            );
            try {
              if (values.out.startsWith('s3://')) {
                const { target } = resolveCliTarget(services, { ...values, url: values.out });
                const store = openCliStore(target, values.profile);
                try {
                  downloaded = await copyHubDatasetToStore(
                    lib,
                    b.build,
                    store,
                    target.prefix,
                    (phase, d, t) =>
                      bar.update(Math.round((d / Math.max(1, t)) * b.submissions), phase),
                  );
                } finally {
                  store.close();
                }
              } else {
                downloaded = await downloadHubDataset(lib, b.build, values.out, (d, t) =>
                  bar.update(Math.round((d / Math.max(1, t)) * b.submissions), 'downloading'),
                );
              }
            } finally {
              bar.finish();
            }
          }
          if (values.json) {
            outJson({ ...view(b), ...(downloaded ? { out: values.out, ...downloaded } : {}) });
          } else {
            out(line(b));
            if (downloaded) {
              out(
                `${downloaded.files} files, ${formatMiB(downloaded.bytes)} (${downloaded.bytes} bytes) in ${values.out}` +
                  (values.out?.startsWith('s3://') ? ' (verified)' : ''),
              );
            }
          }
          return b.status === 'failed' ? 1 : 0;
        };
        if (sub === 'list') {
          if (rest.length) {
            throw new UsageError('dataset list takes no arguments');
          }
          const { builds } = await listHubDatasets(lib);
          if (values.json) {
            outJson({ builds: builds.map(view) });
          } else if (!builds.length) {
            out('no dataset builds yet');
          } else {
            builds.forEach((b) => out(line(b)));
          }
          return 0;
        }
        if (sub === 'status') {
          if (rest.length !== 1 || !/^[1-9][0-9]{0,15}$/.test(rest[0]!)) {
            throw new UsageError('dataset status takes one build id (a number)');
          }
          return await finish((await hubDatasetStatus(lib, Number(rest[0]))).build);
        }
        if (sub !== 'build' || rest.length) {
          throw new UsageError('use dataset build, dataset status <id> or dataset list');
        }
        const format = values.format;
        if (!format || !(HUB_DATASET_FORMATS as readonly string[]).includes(format)) {
          throw new UsageError(`--format is one of ${HUB_DATASET_FORMATS.join(', ')}`);
        }
        const statuses = values.status ?? ['accepted'];
        for (const s of statuses) {
          if (!(HUB_SUBMISSION_STATUSES as readonly string[]).includes(s)) {
            throw new UsageError(`--status is one of ${HUB_SUBMISSION_STATUSES.join(', ')}`);
          }
        }
        const sinceMs = parseDate('--since', values.since);
        const untilMs = parseDate('--until', values.until);
        let b = await startHubDataset(lib, {
          format: format as HubDatasetBuild['format'],
          statuses: statuses as (typeof HUB_SUBMISSION_STATUSES)[number][],
          ...(sinceMs !== undefined ? { sinceMs } : {}),
          ...(untilMs !== undefined ? { untilMs } : {}),
          ...(values.os?.length ? { os: values.os } : {}),
          ...(values.tag?.length ? { tags: values.tag } : {}),
        });
        if (values.detach) {
          return await finish(b);
        }
        const bar = createProgress(
          Math.max(1, b.submissions),
          Boolean(process.stderr.isTTY) && !values.json,
        );
        while (b.status !== 'done' && b.status !== 'failed') {
          bar.update(b.done + b.failed, b.status);
          await sleep(POLL_MS);
          b = (await hubDatasetStatus(lib, b.build)).build;
        }
        bar.update(b.done + b.failed, b.status);
        bar.finish();
        return await finish(b);
      },
      { create: true },
    );
  },
};
