// The admin's side of dataset builds (docs/jobs.md §H): start one on the hub, follow its
// progress, list them, and download a finished one into a folder — every file checked against
// the dataset's manifest (size and SHA-256) in a staging folder first, then moved into place, so
// the folder never holds half a dataset; or copy it to an S3-compatible store, manifest last.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { HubInput, HubOutput } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';
import type { Library } from '../library/library';
import { uploadFolderToStore } from '../upload/export-s3';
import type { ObjectStore } from '../upload/object-store';
import { downloadTransfer } from './review';
import { signedInClient } from './submit';

/** Starts a dataset build on the hub (admins). */
export async function startHubDataset(
  lib: Library,
  input: HubInput<'dataset:build'>,
): Promise<HubOutput<'dataset:build'>> {
  const { client } = await signedInClient(lib);
  return await client.call('dataset:build', input);
}

/** A build's progress (and, with `files`, once done, its files' presigned downloads). */
export async function hubDatasetStatus(
  lib: Library,
  id: number,
  options: { files?: boolean } = {},
): Promise<HubOutput<'dataset:status'>> {
  const { client } = await signedInClient(lib);
  return await client.call('dataset:status', { id, ...(options.files ? { files: true } : {}) });
}

/** The latest dataset builds. */
export async function listHubDatasets(lib: Library): Promise<HubOutput<'dataset:list'>> {
  const { client } = await signedInClient(lib);
  return await client.call('dataset:list', {});
}

type ManifestEntry = { path: string; sizeBytes: number; sha256: string };

function safeRelative(p: string): boolean {
  return (
    p.length > 0 &&
    !p.startsWith('/') &&
    !p.includes('\\') &&
    p.split('/').every((s) => s !== '' && s !== '.' && s !== '..')
  );
}

async function fetchBytes(t: HubOutput<'dataset:status'>['files'][number]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await downloadTransfer(t, {})) {
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks);
}

/** Downloads the finished build `id` into `outDir` (created): the manifest's files, each checked
 * (INTEGRITY_FAILED otherwise), staged, then moved in; EXPORT_TARGET_EXISTS when a file of the
 * dataset is in the folder already. Returns the files and bytes written. */
export async function downloadHubDataset(
  lib: Library,
  id: number,
  outDir: string,
  onProgress?: (done: number, total: number) => void,
): Promise<{ files: number; bytes: number }> {
  const { build, files } = await hubDatasetStatus(lib, id, { files: true });
  if (build.status !== 'done' || !files.length) {
    throw new AppError(
      'INVALID_STATE',
      `dataset build ${id} is ${build.status}, not done: there is nothing to download yet`,
      { id, status: build.status },
      `Wait for it (cua-annotator dataset status ${id}), then download it again.`,
    );
  }
  const manifestTransfer = files[0]!;
  const manifestBytes = await fetchBytes(manifestTransfer);
  if (createHash('sha256').update(manifestBytes).digest('hex') !== build.manifest) {
    throw new AppError(
      'INTEGRITY_FAILED',
      `the manifest of dataset build ${id} does not match the SHA-256 the hub recorded`,
      { id },
      'Build the dataset again (cua-annotator dataset build).',
    );
  }
  const entries = (JSON.parse(manifestBytes.toString('utf8')) as { files: ManifestEntry[] }).files;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const root = path.resolve(outDir);
  await fs.mkdir(root, { recursive: true });
  for (const e of [{ path: 'manifest.json' }, ...entries]) {
    if (!safeRelative(e.path)) {
      throw new AppError('PULL_INVALID', `dataset build ${id} names an unsafe path ${e.path}`);
    }
    const exists = await fs.stat(path.join(root, ...e.path.split('/'))).catch(() => null);
    if (exists) {
      throw new AppError(
        'EXPORT_TARGET_EXISTS',
        `${path.join(root, e.path)} already exists`,
        { path: path.join(root, e.path) },
        'Choose another --out folder (or empty this one).',
      );
    }
  }
  const stage = path.join(root, `.dataset-${id}-${randomBytes(4).toString('hex')}`);
  let bytes = 0;
  try {
    for (const [i, e] of entries.entries()) {
      const t = byPath.get(e.path);
      if (!t) {
        throw new AppError('PULL_INVALID', `the hub sent no download for ${e.path}`);
      }
      const body = await fetchBytes(t);
      const sha = createHash('sha256').update(body).digest('hex');
      if (body.length !== e.sizeBytes || sha !== e.sha256) {
        throw new AppError(
          'INTEGRITY_FAILED',
          `${e.path}: downloaded ${body.length} bytes hashing to ${sha}; the dataset's manifest ` +
            `says ${e.sizeBytes} bytes, ${e.sha256}`,
          { path: e.path },
          `Download it again (cua-annotator dataset status ${id} --out DIR).`,
        );
      }
      const dest = path.join(stage, ...e.path.split('/'));
      await fs.mkdir(path.dirname(dest), { recursive: true });
      await fs.writeFile(dest, body);
      bytes += body.length;
      onProgress?.(i + 1, entries.length);
    }
    // the manifest last: its presence marks a complete dataset
    await fs.writeFile(path.join(stage, 'manifest.json'), manifestBytes);
    for (const e of [...entries, { path: 'manifest.json' }]) {
      const dest = path.join(root, ...e.path.split('/'));
      await fs.mkdir(path.dirname(dest), { recursive: true });
      await fs.rename(path.join(stage, ...e.path.split('/')), dest);
    }
  } finally {
    await fs.rm(stage, { recursive: true, force: true });
  }
  return { files: entries.length + 1, bytes: bytes + manifestBytes.length };
}

/** Copies the finished build `id` to `prefix` of an S3-compatible store (`dataset … --out
 * s3://BUCKET/PREFIX`): downloaded and checked as {@link downloadHubDataset} does into a
 * temporary folder, then every file sent and verified object by object, manifest.json last (its
 * presence marks a complete copy). Returns the files and bytes written. */
export async function copyHubDatasetToStore(
  lib: Library,
  id: number,
  store: ObjectStore,
  prefix: string,
  onProgress?: (phase: 'downloading' | 'uploading', done: number, total: number) => void,
): Promise<{ files: number; bytes: number }> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'cua-dataset-s3-'));
  try {
    await store.checkBucket({});
    await downloadHubDataset(lib, id, work, (d, t) => onProgress?.('downloading', d, t));
    const sent = await uploadFolderToStore(work, store, {
      prefix,
      last: 'manifest.json',
      onUploadProgress: (d, t) => onProgress?.('uploading', d, t),
    });
    return { files: sent.files.length, bytes: sent.bytes };
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
