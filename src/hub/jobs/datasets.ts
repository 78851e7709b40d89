// Starting a dataset build (issue 29 items 3 and 5, docs/jobs.md §H): the submissions the
// filters select — status (accepted by default), the date range of their current version, the
// OS of the recording (its manifest's platform), task tags (the hub's tasks) — become the build's
// items in submission-id order (the merge order), and one `build-item` job each is enqueued; the
// last item to finish enqueues `build-merge` (handlers/build.ts).
import { AppError } from '../../shared/errors';
import type { ExportFormat } from '../../shared/domain';
import {
  findBuild,
  insertBuild,
  listBuildCandidates,
  submissionsWithTaskTags,
  type BuildCandidate,
  type BuildFilters,
  type BuildRecord,
  type HubDb,
} from '../db';
import type { HubObjectStore } from '../storage';
import { readManifest } from './handlers/bundle-library';
import { jobKeys, type JobEnqueue } from './handlers/payloads';

/** What `dataset build` asks for. */
export type DatasetBuildRequest = {
  format: ExportFormat;
  filters: BuildFilters;
  /** Who asked (an admin's account id). */
  createdBy: number | null;
};

// the names people give an OS → the platform.os values recordings carry
const OS_ALIASES: Record<string, string> = {
  win: 'win32',
  windows: 'win32',
  win32: 'win32',
  mac: 'darwin',
  macos: 'darwin',
  darwin: 'darwin',
  linux: 'linux',
  ubuntu: 'linux',
};

/** The platform.os value of an OS name (`windows`, `mac`, `ubuntu`, …); INVALID_PAYLOAD
 * otherwise. */
export function normaliseOs(name: string): string {
  const os = OS_ALIASES[name.toLowerCase()];
  if (!os) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `unknown OS "${name}"`,
      { os: name },
      `Use one of ${Object.keys(OS_ALIASES).join(', ')}.`,
    );
  }
  return os;
}

// The candidates whose recording ran on one of `oses` (read from each manifest).
async function filterByOs(
  store: HubObjectStore,
  candidates: readonly BuildCandidate[],
  oses: readonly string[],
): Promise<BuildCandidate[]> {
  const wanted = new Set(oses.map(normaliseOs));
  const out: BuildCandidate[] = [];
  for (const c of candidates) {
    const { manifest } = await readManifest(store, c.objectPrefix);
    if (wanted.has(String(manifest.platform.os))) {
      out.push(c);
    }
  }
  return out;
}

/** Creates a build of the submissions the filters select and enqueues its items (or, with none,
 * its merge: an empty dataset is still a dataset with a manifest). */
export async function startDatasetBuild(
  deps: { db: HubDb; store: HubObjectStore; enqueue: JobEnqueue },
  request: DatasetBuildRequest,
): Promise<BuildRecord> {
  let candidates = await listBuildCandidates(deps.db, request.filters);
  if (request.filters.tags?.length) {
    const tagged = await submissionsWithTaskTags(
      deps.db,
      candidates.map((c) => c.submissionId),
      request.filters.tags,
    );
    candidates = candidates.filter((c) => tagged.has(c.submissionId));
  }
  if (request.filters.os?.length) {
    candidates = await filterByOs(deps.store, candidates, request.filters.os);
  }
  const filters: Record<string, unknown> = { ...request.filters };
  const id = await insertBuild(deps.db, {
    createdBy: request.createdBy,
    format: request.format,
    filters,
    destination: `store:${deps.store.description}`,
    items: candidates,
  });
  for (const c of candidates) {
    const payload = { buildId: id, submissionId: c.submissionId, version: c.version };
    await deps.enqueue('build-item', payload, {
      key: jobKeys.buildItem(id, c.submissionId),
    });
  }
  if (!candidates.length) {
    await deps.enqueue('build-merge', { buildId: id }, { key: jobKeys.buildMerge(id) });
  }
  return (await findBuild(deps.db, id))!;
}
