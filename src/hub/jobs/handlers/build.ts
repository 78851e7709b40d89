// The dataset build's jobs (issue 29 item 3, docs/jobs.md §H). `build-item`: one accepted
// submission restored into a scratch library and exported by the app's own exporter (`export`'s
// code, one recording): its own files (named after its episode) straight under the build's
// output prefix, the shared agentnet.jsonl line into the build's staging prefix. `build-merge`:
// once every item is done, checks every item's files are in place, concatenates the jsonl lines
// in a stable order (the submissions by id), and writes a manifest (every file's size and
// SHA-256, written last: a dataset without it is incomplete) and a datasheet (counts by OS,
// steps mean and histogram, actions mix). Nothing in the output depends on when or where it was
// built: the same inputs give the same bytes.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ExportFormat } from '../../../shared/domain';
import { AppError } from '../../../shared/errors';
import { runExport } from '../../../services/export/export-service';
import { AGENTNET_JSONL_FILE } from '../../../services/export/format-agentnet-jsonl';
import { showRecording } from '../../../services/recordings';
import {
  findBuild,
  finishBuildItem,
  findJobVersion,
  listBuildItems,
  setBuildStatus,
  type BuildRecord,
} from '../../db';
import type { HubObjectStore } from '../../storage';
import { JobHandedBack, type JobHandler } from '../types';
import { readObject, reasonOf, withBundleLibrary } from './bundle-library';
import { restoreDerivedCot } from './cot';
import { applyReviewerEdits } from './reviewer-edits';
import type { HandlerDeps } from './index';
import {
  BuildItemPayloadSchema,
  BuildMergePayloadSchema,
  jobKeys,
  parsePayload,
  type BuildItemPayload,
  type BuildMergePayload,
} from './payloads';

/** Where a build's files live in the hub's store (`_` never starts an account name, so no
 * submission's prefix is ever under it). */
export const BUILDS_PREFIX = '_builds';
/** The merged dataset's manifest (every file's size and SHA-256). */
export const DATASET_MANIFEST = 'manifest.json';
/** The datasheet: counts and figures of the dataset. */
export const DATASHEET = 'datasheet.json';
/** `schema` of the dataset manifest. */
export const DATASET_SCHEMA = 'cua-annotator/dataset';

/** The key prefix of build `id`'s merged output. */
export function buildOutPrefix(id: number): string {
  return `${BUILDS_PREFIX}/${id}/out`;
}

/** The key prefix of one item's export inside build `id`'s staging area. */
export function buildStagingPrefix(id: number, submissionId: number): string {
  return `${BUILDS_PREFIX}/${id}/staging/${submissionId}`;
}

/** One file of an item's export or of the dataset. */
export type DatasetFile = { path: string; sizeBytes: number; sha256: string };

/** What a build item stored (its row's `result`). */
export type BuildItemResult = {
  submissionId: number;
  version: number;
  recordingId: string;
  episodeId: string;
  os: string;
  steps: number;
  /** Action kinds of its steps (the edited ones), counted. */
  actions: Record<string, number>;
  files: DatasetFile[];
};

/** The dataset manifest (`manifest.json`). */
export type DatasetManifest = {
  schema: typeof DATASET_SCHEMA;
  schemaVersion: 1;
  format: ExportFormat;
  filters: Record<string, unknown>;
  submissions: { id: number; version: number; recording: string; episode: string }[];
  files: DatasetFile[];
  totals: { files: number; bytes: number };
};

async function walkFiles(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      out.push(...(await walkFiles(root, p)));
    } else if (e.isFile()) {
      out.push(p);
    }
  }
  return out;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function buildNotFound(buildId: number): AppError {
  return new AppError(
    'NOT_FOUND',
    `no dataset build ${buildId}`,
    { buildId },
    'List the builds with `cua-annotator dataset list`.',
  );
}

// The exported files of one recording, put into the store (read from the scratch export
// folder; a rerun overwrites the same keys with the same bytes): its own files (named after its
// episode) straight under the build's output prefix, so the merge moves no bytes of them; the
// file all recordings share (agentnet.jsonl: one line each) into its staging prefix, for the
// merge to concatenate in order.
async function stageExport(
  store: HubObjectStore,
  prefixes: { out: string; staging: string },
  outDir: string,
): Promise<DatasetFile[]> {
  const files: DatasetFile[] = [];
  for (const rel of await walkFiles(outDir)) {
    const body = await fs.readFile(path.join(outDir, ...rel.split('/')));
    const prefix = rel === AGENTNET_JSONL_FILE ? prefixes.staging : prefixes.out;
    await store.put(`${prefix}/${rel}`, body, { sizeBytes: body.length });
    files.push({ path: rel, sizeBytes: body.length, sha256: sha256(body) });
  }
  return files;
}

/** Builds the `build-item` handler. */
export function createBuildItemHandler(
  deps: HandlerDeps,
): JobHandler<BuildItemPayload, BuildItemResult | { skipped: string }> {
  return async (payload, ctx) => {
    const p = parsePayload('build-item', BuildItemPayloadSchema, payload);
    const build = await findBuild(deps.db, p.buildId);
    if (!build) {
      throw buildNotFound(p.buildId);
    }
    const item = (await listBuildItems(deps.db, p.buildId)).find(
      (i) => i.submissionId === p.submissionId,
    );
    if (!item || item.version !== p.version) {
      throw new AppError(
        'NOT_FOUND',
        `build ${p.buildId} takes no version ${p.version} of submission ${p.submissionId}`,
        { ...p },
        'Start the build again (`dataset build`).',
      );
    }
    if (item.status !== 'pending') {
      // decided by an earlier run of this key
      return (item.result as BuildItemResult | null) ?? { skipped: item.error ?? 'failed' };
    }
    const version = await findJobVersion(deps.db, p.submissionId, p.version);
    if (!version) {
      throw new AppError('NOT_FOUND', `no version ${p.version} of submission ${p.submissionId}`);
    }
    let result: BuildItemResult | null = null;
    let failure: string | null = null;
    try {
      result = await withBundleLibrary(
        deps.store,
        version.objectPrefix,
        async (b) => {
          if (ctx.signal.aborted) {
            throw new JobHandedBack(ctx.key);
          }
          await ctx.progress(0, 2, `exporting ${b.recordingId}`);
          // the version as its reviewer accepted it, with the hub's CoT of it when its cot
          // job stored one (docs/cot.md "In team mode")
          await applyReviewerEdits(deps.db, b.lib, b.recordingId, p);
          await restoreDerivedCot(deps.store, version.objectPrefix, b.lib, b.recordingId);
          const outDir = path.join(b.dir, 'export');
          const run = await runExport(b.lib, [b.recordingId], {
            format: build.format,
            outDir,
            appVersion: deps.appVersion ?? b.manifest.toolVersion,
            // an allowance made when it was submitted stands (it is in the manifest)
            ...(b.manifest.pii ? { allowPii: true } : {}),
          });
          const exported = run.recordings[0]!;
          const rec = showRecording(b.lib, b.recordingId);
          const actions: Record<string, number> = {};
          for (const s of rec.steps) {
            actions[s.type] = (actions[s.type] ?? 0) + 1;
          }
          await ctx.progress(1, 2, 'staging');
          const files = await stageExport(
            deps.store,
            {
              out: buildOutPrefix(p.buildId),
              staging: buildStagingPrefix(p.buildId, p.submissionId),
            },
            outDir,
          );
          return {
            submissionId: p.submissionId,
            version: p.version,
            recordingId: b.recordingId,
            episodeId: exported.episodeId,
            os: rec.platform.os || 'unknown',
            steps: exported.steps,
            actions,
            files,
          };
        },
        { signal: ctx.signal },
      );
    } catch (e) {
      if (e instanceof JobHandedBack || ctx.signal.aborted) {
        throw new JobHandedBack(ctx.key);
      }
      // the store or the disk: worth another attempt; anything else is this submission's own
      // (damaged, nothing to export): left out of the dataset and named in its datasheet
      if (
        e instanceof AppError &&
        ['STORAGE_UNREACHABLE', 'STORAGE_FULL', 'EXPORT_DISK_FULL'].includes(e.code)
      ) {
        throw e;
      }
      const r = reasonOf(e);
      failure = `${r.code}: ${r.message}`;
    }
    const counts = await finishBuildItem(deps.db, {
      buildId: p.buildId,
      submissionId: p.submissionId,
      status: result ? 'done' : 'failed',
      ...(result ? { result } : {}),
      ...(failure ? { error: failure } : {}),
    });
    await ctx.progress(2, 2, result ? 'done' : 'failed');
    if (counts.done + counts.failed === counts.total) {
      // the last item in: the merge (one job per build, whoever gets here first)
      await setBuildStatus(deps.db, p.buildId, 'merging');
      await deps.enqueue?.(
        'build-merge',
        { buildId: p.buildId },
        { key: jobKeys.buildMerge(p.buildId) },
      );
    }
    return result ?? { skipped: failure ?? 'failed' };
  };
}

function histogram(values: readonly number[]): { upTo: number | null; count: number }[] {
  // fixed bins (the same for every build, so datasheets compare)
  const edges = [5, 10, 20, 50, 100, 200];
  const bins = [...edges.map((e) => ({ upTo: e, count: 0 })), { upTo: null, count: 0 }];
  for (const v of values) {
    const i = edges.findIndex((e) => v <= e);
    bins[i === -1 ? edges.length : i]!.count += 1;
  }
  return bins;
}

/** The datasheet of a build's items (done ones; the failed ones listed). */
export function datasheetOf(
  build: Pick<BuildRecord, 'format' | 'filters'>,
  done: readonly BuildItemResult[],
  failed: readonly { submissionId: number; version: number; error: string | null }[],
  totals: { files: number; bytes: number },
): Record<string, unknown> {
  const byOs: Record<string, number> = {};
  const actions: Record<string, number> = {};
  for (const d of done) {
    byOs[d.os] = (byOs[d.os] ?? 0) + 1;
    for (const [k, n] of Object.entries(d.actions)) {
      actions[k] = (actions[k] ?? 0) + n;
    }
  }
  const steps = done.map((d) => d.steps);
  const totalSteps = steps.reduce((a, b) => a + b, 0);
  const sorted = (o: Record<string, number>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    schema: 'cua-annotator/datasheet',
    schemaVersion: 1,
    format: build.format,
    filters: build.filters,
    trajectories: done.length,
    byOs: sorted(byOs),
    steps: {
      total: totalSteps,
      mean: done.length ? Math.round((totalSteps / done.length) * 100) / 100 : 0,
      min: steps.length ? Math.min(...steps) : 0,
      max: steps.length ? Math.max(...steps) : 0,
      histogram: histogram(steps),
    },
    actions: sorted(actions),
    files: totals,
    leftOut: failed.map((f) => ({
      submission: f.submissionId,
      version: f.version,
      reason: f.error,
    })),
  };
}

const json = (o: unknown) => Buffer.from(`${JSON.stringify(o, null, 2)}\n`);

/** What build-merge returns (and stores on the build). */
export type BuildMergeResult = {
  buildId: number;
  prefix: string;
  manifestSha256: string;
  files: number;
  bytes: number;
  submissions: number;
  leftOut: number;
};

/** Builds the `build-merge` handler. */
export function createBuildMergeHandler(
  deps: HandlerDeps,
): JobHandler<BuildMergePayload, BuildMergeResult> {
  return async (payload, ctx) => {
    const p = parsePayload('build-merge', BuildMergePayloadSchema, payload);
    const build = await findBuild(deps.db, p.buildId);
    if (!build) {
      throw buildNotFound(p.buildId);
    }
    if (build.status === 'done' && build.result) {
      return build.result as BuildMergeResult;
    }
    const items = await listBuildItems(deps.db, p.buildId);
    const pending = items.filter((i) => i.status === 'pending').length;
    if (pending) {
      // enqueued early (by hand): the engine retries it with backoff
      throw new AppError(
        'INVALID_STATE',
        `build ${p.buildId} has ${pending} of ${items.length} submissions still exporting`,
        { buildId: p.buildId, pending },
        'Wait: the merge runs once every submission is exported.',
      );
    }
    const prefix = buildOutPrefix(p.buildId);
    const done = items
      .filter((i) => i.status === 'done')
      .map((i) => i.result as unknown as BuildItemResult);
    const failed = items
      .filter((i) => i.status === 'failed')
      .map((i) => ({ submissionId: i.submissionId, version: i.version, error: i.error }));
    const episodes = new Map<string, number>();
    for (const d of done) {
      const other = episodes.get(d.episodeId);
      if (other !== undefined) {
        // `export` of both would rename one (`_<id>`); one item alone cannot know: refuse
        throw new AppError(
          'INVALID_STATE',
          `submissions ${other} and ${d.submissionId} of build ${p.buildId} have the same ` +
            `episode id ${d.episodeId}`,
          { episodeId: d.episodeId, submissions: [other, d.submissionId] },
          'Leave one of them out of the build (filters), or import one again with another name.',
        );
      }
      episodes.set(d.episodeId, d.submissionId);
    }
    const files = new Map<string, DatasetFile & { from: string | null }>();
    const jsonl: Buffer[] = [];
    let n = 0;
    const total = done.reduce((a, d) => a + d.files.length, 0);
    for (const d of done) {
      const staging = buildStagingPrefix(p.buildId, d.submissionId);
      for (const f of d.files) {
        if (ctx.signal.aborted) {
          throw new JobHandedBack(ctx.key);
        }
        if (f.path === AGENTNET_JSONL_FILE) {
          jsonl.push(await readObject(deps.store, `${staging}/${f.path}`));
          continue;
        }
        const had = files.get(f.path);
        if (had && had.sha256 !== f.sha256) {
          throw new AppError(
            'INVALID_STATE',
            `two submissions of build ${p.buildId} export ${f.path} with different bytes ` +
              `(${had.from} and ${staging})`,
            { path: f.path },
            'Leave one of them out (filters), or re-export one under another episode id.',
          );
        }
        if (!had) {
          // the item wrote it in place: it must still be there, whole
          const info = await deps.store.stat(`${prefix}/${f.path}`);
          if (info?.sizeBytes !== f.sizeBytes) {
            throw new AppError(
              'INTEGRITY_FAILED',
              `${prefix}/${f.path} of submission ${d.submissionId} is missing or changed`,
              { path: f.path },
              'Build the dataset again (cua-annotator dataset build).',
            );
          }
          files.set(f.path, { ...f, from: staging });
        }
        n += 1;
        if (n % 20 === 0) {
          await ctx.progress(n, total, 'merging');
        }
      }
    }
    if (jsonl.length) {
      const body = Buffer.concat(jsonl);
      await deps.store.put(`${prefix}/${AGENTNET_JSONL_FILE}`, body, { sizeBytes: body.length });
      files.set(AGENTNET_JSONL_FILE, {
        path: AGENTNET_JSONL_FILE,
        sizeBytes: body.length,
        sha256: sha256(body),
        from: null,
      });
    }
    const list = [...files.values()]
      .map(({ path: fp, sizeBytes, sha256: sh }) => ({ path: fp, sizeBytes, sha256: sh }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const totals = {
      files: list.length,
      bytes: list.reduce((a, f) => a + f.sizeBytes, 0),
    };
    const sheet = json(datasheetOf(build, done, failed, totals));
    await deps.store.put(`${prefix}/${DATASHEET}`, sheet, { sizeBytes: sheet.length });
    const manifest: DatasetManifest = {
      schema: DATASET_SCHEMA,
      schemaVersion: 1,
      format: build.format,
      filters: build.filters,
      submissions: done.map((d) => ({
        id: d.submissionId,
        version: d.version,
        recording: d.recordingId,
        episode: d.episodeId,
      })),
      files: [...list, { path: DATASHEET, sizeBytes: sheet.length, sha256: sha256(sheet) }].sort(
        (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
      ),
      totals: { files: list.length + 1, bytes: totals.bytes + sheet.length },
    };
    const manifestBytes = json(manifest);
    // written last: its presence marks a complete dataset
    await deps.store.put(`${prefix}/${DATASET_MANIFEST}`, manifestBytes, {
      sizeBytes: manifestBytes.length,
    });
    const result: BuildMergeResult = {
      buildId: p.buildId,
      prefix,
      manifestSha256: sha256(manifestBytes),
      files: manifest.totals.files,
      bytes: manifest.totals.bytes,
      submissions: done.length,
      leftOut: failed.length,
    };
    await setBuildStatus(deps.db, p.buildId, 'done', {
      manifestSha256: result.manifestSha256,
      result,
    });
    await ctx.progress(total, total, 'done');
    ctx.log(`build ${p.buildId}: ${result.files} files, ${result.bytes} bytes in ${prefix}`);
    return result;
  };
}
