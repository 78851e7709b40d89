// The submits the hub could not take yet (docs/team-mode.md §14): kept in the library as
// `uploads/hub-pending.json`, written whole (a temp file, then rename), so a crash leaves the
// old list or the new one, never half of one. The team service retries them in the background
// while the app or `serve` runs, and when it starts again; the hub's registration is idempotent
// by the manifest's SHA-256, so a retry after a hub that died mid-submit registers nothing twice.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import type { Library } from '../library/library';
import { UPLOADS_STAGE_DIR } from '../upload/queue';

/** The pending list, relative to the library. */
export const HUB_PENDING_FILE = `${UPLOADS_STAGE_DIR}/hub-pending.json`;

const ErrorSchema = v.object({
  code: v.string(),
  message: v.string(),
  fix: v.optional(v.string()),
});

const EntrySchema = v.object({
  recording: v.string(),
  /** The hub it waits for and the account that submits it. */
  url: v.string(),
  user: v.string(),
  queuedAtMs: v.number(),
  /** Attempts made (the first, failed one included). */
  attempts: v.number(),
  /** When the next automatic attempt runs (epoch ms); null: not retried by itself. */
  nextAttemptAtMs: v.nullable(v.number()),
  /** `waiting`: the hub was unreachable, retried; `failed`: refused for another reason. */
  state: v.picklist(['waiting', 'failed']),
  lastError: ErrorSchema,
});

/** A submit waiting for the hub (or refused by it on a retry). */
export type PendingSubmit = v.InferOutput<typeof EntrySchema>;

const FileSchema = v.object({ v: v.literal(1), entries: v.array(EntrySchema) });

function fileOf(lib: Library): string {
  return lib.resolve(HUB_PENDING_FILE);
}

/** The pending submits of the library (none when the file is missing or unreadable). */
export async function readPending(lib: Library): Promise<PendingSubmit[]> {
  let text: string;
  try {
    text = await fs.readFile(fileOf(lib), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return [];
    }
    throw e;
  }
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a damaged list (written by hand?) holds nothing we can trust
  }
  const checked = v.safeParse(FileSchema, parsed);
  return checked.success ? checked.output.entries : [];
}

/** Replaces the pending list (removes the file when it is empty). */
export async function writePending(lib: Library, entries: readonly PendingSubmit[]): Promise<void> {
  const file = fileOf(lib);
  if (entries.length === 0) {
    await fs.rm(file, { force: true });
    return;
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temp, `${JSON.stringify({ v: 1, entries }, null, 2)}\n`);
    await fs.rename(temp, file);
  } catch (e) {
    await fs.rm(temp, { force: true });
    throw e;
  }
}
