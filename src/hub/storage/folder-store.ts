// The folder object store: the embedded hub's objects in DIR/objects (docs/team-mode.md §9).
// Writes go to a temp file beside the folder (DIR/.objects-tmp), are flushed, then renamed
// into place: a reader sees the whole old object or the whole new one, and a crash leaves only a
// temp file (cleared at the next open). Keys are checked (checkObjectKey) and resolved inside
// the folder, its real path included, so no key reaches outside it. A full disk is STORAGE_FULL.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { AppError, isAppError } from '../../shared/errors';
import {
  checkExpiresIn,
  checkObjectKey,
  checkObjectPrefix,
  checkSize,
  type HubObjectInfo,
  type HubObjectStore,
  type PresignedRequest,
  type PresignGetOptions,
  type PresignPutOptions,
  type PutOptions,
} from './object-store';
import { signObjectPath } from './signed-url';

/** How many objects' SHA-256 the folder store remembers (oldest forgotten first). */
const HASHES_KEPT = 100_000;

/** What the folder store remembers of an object it wrote: the hash of the bytes it wrote, and
 * the file's identity then (an inode's ctime changes with every write, rename or chmod, and
 * cannot be set back), so a file changed since is hashed again. */
type WrittenObject = { sha256: string; size: bigint; ino: bigint; ctimeNs: bigint };

/** The folder inside the hub's data folder that holds the objects. */
export const OBJECTS_SUBDIR = 'objects';

/** Maps a file-system failure to a coded storage error. */
export function folderStoreError(e: unknown, what: string, where: string): AppError {
  if (isAppError(e)) {
    return e;
  }
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOSPC' || err.code === 'EDQUOT') {
    return new AppError(
      'STORAGE_FULL',
      `the hub's object folder ${where} is full (${err.code}) while ${what}`,
      { errno: err.code },
      'Free space on the disk of the hub’s data folder (or move it to a larger disk), then ' +
        'send the submission again: it resumes.',
    );
  }
  return new AppError(
    'STORAGE_UNREACHABLE',
    `the hub's object folder ${where} failed while ${what}: ${err.code ?? err.message}`,
    { errno: err.code ?? null },
    err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS'
      ? 'Make the hub’s data folder writable by the account that runs the hub.'
      : 'Check the disk of the hub’s data folder (dmesg, df), then try again.',
  );
}

/** Options of {@link FolderObjectStore}. */
export type FolderStoreOptions = {
  /** The objects folder (`DIR/objects`); created when missing. */
  dir: string;
  /** The per-hub secret that signs object URLs (signed-url.ts). */
  secret: Buffer;
  /** The hub's URL the signed object URLs start with (set later with setBaseUrl). */
  baseUrl?: string;
};

/** Objects in a folder, served by the hub through signed URLs. */
export class FolderObjectStore implements HubObjectStore {
  readonly kind = 'folder';
  readonly description: string;
  private baseUrl: string | null;
  private opening: Promise<string> | null = null;
  // beside the objects folder (same file system: rename is atomic), outside every key
  private readonly tmpDir: string;
  // SHA-256 of objects this process wrote, by key: verification need not read them back
  private readonly written = new Map<string, WrittenObject>();

  constructor(private readonly options: FolderStoreOptions) {
    this.description = `folder ${options.dir}`;
    this.tmpDir = path.join(path.dirname(options.dir), `.${path.basename(options.dir)}-tmp`);
    this.baseUrl = options.baseUrl ? options.baseUrl.replace(/\/+$/, '') : null;
  }

  /** Sets the hub URL that presigned URLs start with (known once the hub listens). */
  setBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/+$/, '');
  }

  /** The per-hub signing secret (the hub's HTTP layer verifies object URLs with it). */
  get secret(): Buffer {
    return this.options.secret;
  }

  // opened once, by the first call: calls that arrive together (a hub's first requests) share
  // the one opening, so none clears the temp folder under another's write
  private root(): Promise<string> {
    this.opening ??= (async () => {
      try {
        await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
        // a crash mid-write leaves temp files only: clear them
        await rm(this.tmpDir, { recursive: true, force: true });
        await mkdir(this.tmpDir, { mode: 0o700 });
        return await realpath(this.options.dir);
      } catch (e) {
        this.opening = null; // the next call tries again
        throw folderStoreError(e, 'opening it', this.options.dir);
      }
    })();
    return this.opening;
  }

  // the file of a key, inside the folder whatever the key or the links below the folder
  private async fileOf(key: string, create: boolean): Promise<string> {
    checkObjectKey(key);
    const root = await this.root();
    const file = path.resolve(root, ...key.split('/'));
    const parent = path.dirname(file);
    if (create) {
      await mkdir(parent, { recursive: true, mode: 0o700 });
    }
    let parentReal: string;
    try {
      parentReal = await realpath(parent);
    } catch {
      return file; // no such folder: no such object
    }
    if (parentReal !== root && !parentReal.startsWith(root + path.sep)) {
      throw new AppError('PATH_INVALID', `storage key ${key} leads outside ${root}`, { key });
    }
    return path.join(parentReal, path.basename(file));
  }

  async put(
    key: string,
    body: Buffer | AsyncIterable<Uint8Array>,
    options: PutOptions = {},
  ): Promise<HubObjectInfo> {
    const want = options.sizeBytes === undefined ? undefined : checkSize(options.sizeBytes);
    let file: string;
    let tmp: string;
    try {
      file = await this.fileOf(key, true);
      tmp = path.join(this.tmpDir, randomBytes(12).toString('hex'));
    } catch (e) {
      throw folderStoreError(e, `storing ${key}`, this.options.dir);
    }
    let written = 0;
    const hash = createHash('sha256');
    this.written.delete(key);
    try {
      const handle = await open(tmp, 'wx', 0o600);
      try {
        const chunks = Buffer.isBuffer(body) ? [body] : body;
        for await (const chunk of chunks) {
          written += chunk.byteLength;
          if (want !== undefined && written > want) {
            throw tooBig(key, want);
          }
          hash.update(chunk);
          // one write may take only part of the chunk (a nearly full disk): write the rest, so
          // the next write meets the ENOSPC instead of a short file passing as whole
          for (let off = 0; off < chunk.byteLength;) {
            const { bytesWritten } = await handle.write(chunk, off, chunk.byteLength - off);
            off += bytesWritten;
          }
        }
        if (want !== undefined && written !== want) {
          throw new AppError(
            'INTEGRITY_FAILED',
            `${key}: ${written} bytes arrived, ${want} were announced`,
            { key, sizeBytes: written, expected: want },
            'Send the file again (the upload was cut short).',
          );
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, file);
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw folderStoreError(e, `storing ${key}`, this.options.dir);
    }
    const sha256 = hash.digest('hex');
    const s = await lstat(file, { bigint: true }).catch(() => null);
    if (s) {
      if (this.written.size >= HASHES_KEPT) {
        this.written.delete(this.written.keys().next().value!);
      }
      this.written.set(key, { sha256, size: s.size, ino: s.ino, ctimeNs: s.ctimeNs });
    }
    return { key, sizeBytes: written, sha256 };
  }

  async get(key: string): Promise<AsyncIterable<Uint8Array>> {
    const file = await this.fileOf(key, false);
    try {
      // opened here so a missing object fails now, not at the first read; never through a
      // link (only the hub writes this folder: a link in it is not the hub's)
      const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
      return handle.createReadStream({ autoClose: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        throw missing(key, this.description);
      }
      if ((e as NodeJS.ErrnoException).code === 'ELOOP') {
        throw new AppError('PATH_INVALID', `storage key ${key} is a link`, { key });
      }
      throw folderStoreError(e, `reading ${key}`, this.options.dir);
    }
  }

  async stat(key: string): Promise<HubObjectInfo | null> {
    const file = await this.fileOf(key, false);
    try {
      const s = await lstat(file, { bigint: true });
      if (!s.isFile()) {
        return null;
      }
      const w = this.written.get(key);
      const same = w && w.size === s.size && w.ino === s.ino && w.ctimeNs === s.ctimeNs;
      return { key, sizeBytes: Number(s.size), ...(same ? { sha256: w.sha256 } : {}) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        return null;
      }
      throw folderStoreError(e, `reading ${key}`, this.options.dir);
    }
  }

  async delete(key: string): Promise<void> {
    const file = await this.fileOf(key, false);
    this.written.delete(key);
    await unlink(file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') {
        throw folderStoreError(e, `deleting ${key}`, this.options.dir);
      }
    });
  }

  async *list(prefix: string): AsyncIterable<HubObjectInfo> {
    checkObjectPrefix(prefix);
    const root = await this.root();
    // walk the deepest folder the prefix names entirely, then filter by the prefix
    const dirPart = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const start = path.join(root, ...dirPart.split('/').filter(Boolean));
    const walk = async function* (dir: string, keyDir: string): AsyncIterable<HubObjectInfo> {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const key = keyDir ? `${keyDir}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          yield* walk(path.join(dir, entry.name), key);
        } else if (entry.isFile() && key.startsWith(prefix)) {
          const s = await stat(path.join(dir, entry.name));
          yield { key, sizeBytes: s.size };
        }
      }
    };
    yield* walk(start, dirPart);
  }

  private url(pathAndQuery: string): string {
    if (!this.baseUrl) {
      throw new AppError(
        'INVALID_STATE',
        'the folder store has no URL yet: the hub sets it once it listens',
        undefined,
        'Start the hub (cua-annotator hub) before handing out object URLs.',
      );
    }
    return `${this.baseUrl}${pathAndQuery}`;
  }

  presignPut(key: string, options: PresignPutOptions): Promise<PresignedRequest> {
    const expiresAtMs = Date.now() + checkExpiresIn(options.expiresInSec) * 1000;
    const sizeBytes = checkSize(options.sizeBytes);
    const url = this.url(
      signObjectPath(this.options.secret, { method: 'PUT', key, sizeBytes, expiresAtMs }),
    );
    return Promise.resolve({
      method: 'PUT',
      url,
      headers: { 'content-length': String(sizeBytes) },
      expiresAtMs,
    });
  }

  presignGet(key: string, options: PresignGetOptions = {}): Promise<PresignedRequest> {
    const expiresAtMs = Date.now() + checkExpiresIn(options.expiresInSec) * 1000;
    const url = this.url(signObjectPath(this.options.secret, { method: 'GET', key, expiresAtMs }));
    return Promise.resolve({ method: 'GET', url, headers: {}, expiresAtMs });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function tooBig(key: string, want: number): AppError {
  return new AppError(
    'INTEGRITY_FAILED',
    `${key}: more than the ${want} bytes announced arrived`,
    { key, expected: want },
    'Send the file the manifest describes.',
  );
}

function missing(key: string, where: string): AppError {
  return new AppError(
    'NOT_FOUND',
    `no object ${key} in ${where}`,
    { key },
    'Send the submission again: its upload did not finish.',
  );
}

/** SHA-256 (hex) and size of a byte stream. */
export async function hashStream(
  body: AsyncIterable<Uint8Array>,
): Promise<{ sha256: string; sizeBytes: number }> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  for await (const chunk of body) {
    hash.update(chunk);
    sizeBytes += chunk.byteLength;
  }
  return { sha256: hash.digest('hex'), sizeBytes };
}
