// Content hashes of media and export files, computed by streaming (videos can be gigabytes).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Read size for hashing: 1 MiB chunks keep syscalls few and memory flat. */
const HASH_CHUNK_BYTES = 1024 * 1024;

// SHA-256 of a file's bytes as lowercase hex, read as a stream in constant memory.
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: HASH_CHUNK_BYTES })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}
