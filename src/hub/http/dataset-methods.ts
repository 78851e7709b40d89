// The hub methods of dataset builds (docs/jobs.md §H): `dataset:build` starts one (its items are
// jobs, so a hub without a job layer refuses), `dataset:status` answers its progress and, once
// done, presigned downloads of its files, `dataset:list` the latest builds. Admins only
// (HUB_ROLE_TABLE).
import type { HubInput, HubMethod, HubOutput } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';
import { findBuild, listBuilds, type BuildRecord } from '../db';
import { startDatasetBuild } from '../jobs/datasets';
import { buildOutPrefix, DATASET_MANIFEST, type DatasetManifest } from '../jobs/handlers';
import { readObject } from '../jobs/handlers/bundle-library';
import type { HubObjectStore } from '../storage';
import type { HubCallContext } from './methods';

type DatasetMethod = 'dataset:build' | 'dataset:status' | 'dataset:list';
type Handler<M extends HubMethod> = (
  ctx: HubCallContext,
  input: HubInput<M>,
) => Promise<HubOutput<M>>;

/** A build as the methods answer it. */
export function buildDto(b: BuildRecord): HubOutput<'dataset:build'> {
  return {
    build: b.id,
    status: b.status,
    format: b.format,
    filters: b.filters,
    submissions: b.total,
    done: b.done,
    failed: b.failed,
    manifest: b.manifestSha256,
    prefix: buildOutPrefix(b.id),
    error: b.error,
    createdBy: b.createdBy,
    createdAtMs: b.createdAtMs,
    finishedAtMs: b.finishedAtMs,
  };
}

function needStore(ctx: HubCallContext): HubObjectStore {
  if (!ctx.store) {
    throw new AppError(
      'INVALID_STATE',
      'this hub has no object store: there is nothing to build a dataset from',
      undefined,
      'Start the hub with --data DIR (its objects folder) or --storage s3://BUCKET/PREFIX.',
    );
  }
  return ctx.store;
}

/** The dataset methods' handlers. */
export const DATASET_HANDLERS: { [M in DatasetMethod]: Handler<M> } = {
  'dataset:build': async (ctx, input) => {
    const store = needStore(ctx);
    if (!ctx.jobs) {
      throw new AppError(
        'INVALID_STATE',
        'this hub runs no jobs: a dataset build is a job per submission',
        undefined,
        'Start the hub with its job layer (the default), or run `cua-annotator worker`.',
      );
    }
    const build = await startDatasetBuild(
      {
        db: ctx.db,
        store,
        enqueue: async (name, payload, options) => {
          await ctx.jobs!.enqueue(name, payload, options);
        },
      },
      {
        format: input.format,
        createdBy: ctx.caller?.user.id ?? null,
        filters: {
          statuses: input.statuses ?? ['accepted'],
          ...(input.sinceMs !== undefined ? { sinceMs: input.sinceMs } : {}),
          ...(input.untilMs !== undefined ? { untilMs: input.untilMs } : {}),
          ...(input.os?.length ? { os: input.os } : {}),
          ...(input.tags?.length ? { tags: input.tags } : {}),
        },
      },
    );
    return buildDto(build);
  },
  'dataset:status': async (ctx, input) => {
    const build = await findBuild(ctx.db, input.id);
    if (!build) {
      throw new AppError(
        'NOT_FOUND',
        `no dataset build ${input.id}`,
        { id: input.id },
        'List the builds with `cua-annotator dataset list`.',
      );
    }
    const files: HubOutput<'dataset:status'>['files'] = [];
    if (input.files && build.status === 'done') {
      const store = needStore(ctx);
      const prefix = buildOutPrefix(build.id);
      const manifestBytes = await readObject(store, `${prefix}/${DATASET_MANIFEST}`);
      const manifest = JSON.parse(manifestBytes.toString('utf8')) as DatasetManifest;
      for (const f of [
        { path: DATASET_MANIFEST, sizeBytes: manifestBytes.length },
        ...manifest.files,
      ]) {
        files.push({
          path: f.path,
          sizeBytes: f.sizeBytes,
          request: await store.presignGet(`${prefix}/${f.path}`, { expiresInSec: 3600 }),
        });
      }
    }
    return { build: buildDto(build), files };
  },
  'dataset:list': async (ctx, input) => ({
    builds: (await listBuilds(ctx.db, { limit: input.limit ?? 100 })).map(buildDto),
  }),
};
