// A submission bundle restored from the hub's store into a scratch library (a temp folder), so a
// job runs the very services the app runs on it — the PII scan, `check`, keyframes, the
// exporters — with the same results (docs/jobs.md §H). The library is removed when the job's
// function returns or throws.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { openLibrary, type Library } from '../../../services/library/library';
import {
  MANIFEST_NAME,
  parseManifest,
  type SubmissionManifest,
} from '../../../services/upload/manifest';
import { importBundle } from '../../../services/upload/pull';
import type { HubObjectStore } from '../../storage';

/** Reads a small object whole (a manifest). */
export async function readObject(store: HubObjectStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await store.get(key)) {
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks);
}

/** The manifest stored under `prefix` (PULL_INVALID when it is not a manifest). */
export async function readManifest(
  store: HubObjectStore,
  prefix: string,
): Promise<{ manifest: SubmissionManifest; bytes: Buffer }> {
  const bytes = await readObject(store, `${prefix}/${MANIFEST_NAME}`);
  return { manifest: parseManifest(bytes.toString('utf8'), `${prefix}/${MANIFEST_NAME}`), bytes };
}

/** A bundle restored into a scratch library. */
export type BundleLibrary = {
  lib: Library;
  /** The recording's id in it (the manifest's). */
  recordingId: string;
  manifest: SubmissionManifest;
  /** Restore warnings (the submitted steps differ from the edits applied, …). */
  warnings: string[];
  /** The scratch folder (for outputs beside the library). */
  dir: string;
};

/** Restores the bundle under `prefix` (each file checked against the manifest while it is
 * read) into a new scratch library and runs `fn` on it; the folder is removed after. */
export async function withBundleLibrary<T>(
  store: HubObjectStore,
  prefix: string,
  fn: (b: BundleLibrary) => Promise<T>,
  options: { signal?: AbortSignal; manifest?: SubmissionManifest } = {},
): Promise<T> {
  const manifest = options.manifest ?? (await readManifest(store, prefix)).manifest;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cua-hub-job-'));
  let lib: Library | null = null;
  try {
    lib = openLibrary(path.join(dir, 'library'));
    const { warnings } = await importBundle(
      lib,
      {
        where: `${store.description} ${prefix}`,
        get: async (p) => await store.get(`${prefix}/${p}`),
      },
      manifest,
      {
        retry: (op) => op(),
        call: options.signal ? { signal: options.signal } : {},
        concurrency: 4,
        onBytes: () => undefined,
      },
    );
    return await fn({ lib, recordingId: manifest.recordingId, manifest, warnings, dir });
  } finally {
    lib?.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** An AppError's code and message, or the error's message: a reason a job records. */
export function reasonOf(e: unknown): { code: string; message: string } {
  if (e instanceof AppError) {
    return { code: e.code, message: e.message };
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}
