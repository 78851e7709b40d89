// The annotator's and the admin's side of the task hub (docs/team-mode.md §16), through the
// library's stored sign-in: import a task file (a dry run first), list the open tasks of this
// OS, claim, release, report infeasible, and link a local recording to a task (the id then
// travels with the recording into its submission and its exports).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HubInput, HubMethod, HubOutput } from '../../shared/contract/hub';
import { HUB_TASKS_IMPORT_MAX_BYTES } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';
import {
  taskFileFormatOf,
  teamTaskIdOf,
  type TaskFileFormat,
  type TaskPlatform,
} from '../../shared/tasks-file';
import { getRecording, setTeamTaskId } from '../../store';
import type { Library } from '../library/library';
import type { HubCredentialStore } from './credential-store';
import { signedInClient } from './submit';

/** The task platform of the OS this runs on (`linux` records as ubuntu). */
export function hostTaskPlatform(platform: NodeJS.Platform = process.platform): TaskPlatform {
  return platform === 'win32' ? 'win' : platform === 'darwin' ? 'mac' : 'ubuntu';
}

/** Reads a task file for tasks:import: its text and format (from the name unless given). */
export async function readTaskFile(
  file: string,
  format?: TaskFileFormat,
): Promise<{ text: string; format: TaskFileFormat }> {
  const fmt = format ?? taskFileFormatOf(file);
  if (!fmt) {
    throw new AppError(
      'USAGE',
      `cannot tell the format of ${path.basename(file)} from its name`,
      { file },
      'Name the file .jsonl or .csv, or give --format jsonl|csv.',
    );
  }
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new AppError(
      code === 'ENOENT' ? 'NOT_FOUND' : 'IO_ERROR',
      `cannot read ${file}: ${code ?? (e as Error).message}`,
      { file },
      'Check the path and that you may read the file.',
    );
  }
  // the JSON body carries the text escaped: leave room for it
  if (bytes.length > HUB_TASKS_IMPORT_MAX_BYTES * 0.9) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `${path.basename(file)} has ${bytes.length} bytes; the hub takes task files up to ` +
        `${Math.floor((HUB_TASKS_IMPORT_MAX_BYTES * 0.9) / 1024 / 1024)} MiB`,
      { file, bytes: bytes.length },
      'Split the file and import the parts one after the other (duplicates are refused).',
    );
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return { text, format: fmt };
}

/** Imports a task file into the hub (admins); with dryRun nothing is written. */
export async function importHubTasks(
  lib: Library,
  file: string,
  options: {
    dryRun: boolean;
    /** Add the good lines although some are bad. */
    confirm?: boolean;
    format?: TaskFileFormat;
    credentials?: HubCredentialStore;
  },
): Promise<HubOutput<'tasks:import'>> {
  const { text, format } = await readTaskFile(file, options.format);
  const { client } = await signedInClient(lib, options.credentials);
  return await client.call('tasks:import', {
    text,
    format,
    dryRun: options.dryRun,
    confirm: options.confirm ?? false,
  });
}

/** Calls one tasks method of the hub through the library's sign-in. */
export async function callHubTasks<M extends TaskMethod>(
  lib: Library,
  method: M,
  input: HubInput<M>,
  credentials?: HubCredentialStore,
): Promise<HubOutput<M>> {
  const { client } = await signedInClient(lib, credentials);
  return await client.call(method, input);
}

/** The hub's tasks methods the client calls by name. */
export type TaskMethod = Extract<HubMethod, `tasks:${string}`>;

/** Lists the hub's tasks: by default the open ones for this OS, fewest recordings first. */
export async function listHubTasks(
  lib: Library,
  input: HubInput<'tasks:list'> = {},
  credentials?: HubCredentialStore,
): Promise<HubOutput<'tasks:list'>> {
  return await callHubTasks(lib, 'tasks:list', input, credentials);
}

/** Claims a task (or renews one's claim on it). */
export async function claimHubTask(
  lib: Library,
  taskId: number,
  credentials?: HubCredentialStore,
): Promise<HubOutput<'tasks:claim'>> {
  return await callHubTasks(lib, 'tasks:claim', { id: taskId }, credentials);
}

/** The task a recording is to be made for: claimed (or the claim renewed) so nobody else takes
 * it, with the instruction to record. A task someone else holds is refused. */
export async function taskToRecord(
  lib: Library,
  taskId: number,
  credentials?: HubCredentialStore,
): Promise<{ id: number; instruction: string; description: string; expiresAtMs: number }> {
  const r = await claimHubTask(lib, taskId, credentials);
  if (!r.claimed || r.expiresAtMs === null) {
    throw new AppError(
      'INVALID_STATE',
      `task ${taskId} is held by ${r.task.claimedBy.join(', ') || 'others'}: it takes no more ` +
        'recorders now',
      { taskId, claimedBy: r.task.claimedBy },
      'Pick another task (cua-annotator tasks), or wait until a claim on it ends.',
    );
  }
  return {
    id: r.task.id,
    instruction: r.task.instruction,
    description: r.task.description,
    expiresAtMs: r.expiresAtMs,
  };
}

/** Links a local recording to a hub task (kept in its source metadata; exports and submit read
 * it). */
export function linkRecordingToTask(lib: Library, recordingId: string, taskId: number): void {
  const rec = getRecording(lib.db, recordingId);
  if (teamTaskIdOf(rec.sourceMetadata) !== taskId) {
    setTeamTaskId(lib.db, rec.seq, taskId, Date.now());
  }
}

/** The hub task a local recording was made for, or null. */
export function recordingTaskId(lib: Library, recordingId: string): number | null {
  return teamTaskIdOf(getRecording(lib.db, recordingId).sourceMetadata);
}
