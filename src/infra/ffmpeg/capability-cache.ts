// ffmpeg's capabilities on disk, per binary (issue 31 item 3): the four capability queries
// (`-version`, `-devices`, `-encoders`, `-filters`) cost ~0.15 s of every process that resolves
// ffmpeg, so their answers are kept in the user's cache folder (src/infra/cache-dir.ts) under the
// binary's resolved path, with its size and mtime. An entry of another binary (replaced,
// upgraded, touched) or a file that does not parse is ignored and rewritten; the file is written
// atomically (temp file + rename), and a cache that cannot be written only costs the queries.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import type { FfmpegCapabilities } from './binary';

/** File name of the cache inside the cache folder. */
export const CAPABILITY_CACHE_FILE = 'ffmpeg-capabilities.json';
/** Format version of the file; another version is ignored (and replaced). */
const CACHE_VERSION = 1;

/** What identifies one build on disk: its resolved path, size and mtime. */
export type BinaryIdentity = { realPath: string; size: number; mtimeMs: number };

const CapabilitiesSchema = v.strictObject({
  version: v.string(),
  hasX11grab: v.boolean(),
  hasLibx264: v.boolean(),
  captureDevices: v.strictObject({
    x11grab: v.boolean(),
    avfoundation: v.boolean(),
    gdigrab: v.boolean(),
    ddagrab: v.boolean(),
  }),
});

const EntrySchema = v.strictObject({
  size: v.number(),
  mtimeMs: v.number(),
  capabilities: CapabilitiesSchema,
});

const CacheFileSchema = v.object({
  version: v.literal(CACHE_VERSION),
  binaries: v.record(v.string(), EntrySchema),
});

type CacheEntries = v.InferOutput<typeof CacheFileSchema>['binaries'];

/** The cache file's entries; empty when it is missing, unreadable or not this format. */
async function readEntries(file: string): Promise<CacheEntries> {
  try {
    const parsed = v.safeParse(CacheFileSchema, JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.output.binaries : {};
  } catch {
    return {};
  }
}

/** The cached capabilities of `id`, or null (no entry, another binary, a corrupt file). */
export async function readCachedCapabilities(
  cacheDir: string,
  id: BinaryIdentity,
): Promise<FfmpegCapabilities | null> {
  const entry = (await readEntries(path.join(cacheDir, CAPABILITY_CACHE_FILE)))[id.realPath];
  return entry && entry.size === id.size && entry.mtimeMs === id.mtimeMs
    ? entry.capabilities
    : null;
}

/** Stores the capabilities of `id` beside the file's other valid entries, atomically; a failure
 * (read-only home, full disk) is ignored: the next process queries ffmpeg again. */
export async function writeCachedCapabilities(
  cacheDir: string,
  id: BinaryIdentity,
  capabilities: FfmpegCapabilities,
): Promise<void> {
  const file = path.join(cacheDir, CAPABILITY_CACHE_FILE);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(cacheDir, { recursive: true });
    const binaries = await readEntries(file);
    binaries[id.realPath] = { size: id.size, mtimeMs: id.mtimeMs, capabilities };
    await writeFile(temp, `${JSON.stringify({ version: CACHE_VERSION, binaries }, null, 2)}\n`);
    await rename(temp, file);
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}
