// Reads and validates an AgentNet Tool recording folder (docs/agentnet-raw-format.md §1–11, §14)
// before anything is written anywhere. Never writes. Every rejection is an AppError naming the
// file, the line and the problem (`IMPORT_INVALID`, or `LEGACY_ENCRYPTED_UNSUPPORTED`).
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import type { RawEvent } from '../../shared/domain/raw-event';
import { AGENTNET_EVENTS_FILE, parseAgentNetEvents } from './agentnet-events';
import { importInvalid } from './import-error';
import type { SourceLocation } from './import-error';
import {
  finiteNumberField,
  integerField,
  optionalFiniteNumberField,
  optionalStringField,
  positiveIntegerField,
  requireField,
  stringField,
} from './json-fields';
import { assertNotEncrypted, decodeUtf8, nonBlankLines, parseJsonObject } from './json-text';
import type { TextLine } from './json-text';
import { mp4HeaderProblem, readFileHead } from './mp4-header';

/** File names inside an AgentNet folder that this reader interprets. */
export const AGENTNET_FILES = {
  metadata: 'metadata.json',
  task: 'task_name.json',
  events: AGENTNET_EVENTS_FILE,
  reducedComplete: 'reduced_events_complete.jsonl',
  reducedVis: 'reduced_events_vis.jsonl',
  a11y: 'a11y.jsonl',
  element: 'element.jsonl',
  topWindow: 'top_window.jsonl',
  hubTaskId: 'hub_task_id.txt',
} as const;

/** Pattern used as the `file` of video problems that concern no single file. */
export const AGENTNET_VIDEO_PATTERN = '*.mp4';

/** Warning code: `video_start_timestamp` equals the first step's start (a cut recording, §13). */
export const WARN_ALIGNMENT_SUSPECT = 'ALIGNMENT_SUSPECT';

/** `metadata.json`: the whole object plus the three fields the pipeline requires. */
export type AgentNetMetadata = {
  /** The parsed object as written (extra keys kept; copied verbatim on export). */
  raw: Record<string, unknown>;
  /** `screen_width`: width of the coordinate space of every x/y (px on Windows, pt on macOS). */
  screenWidth: number;
  /** `screen_height`: height of that coordinate space. */
  screenHeight: number;
  /** `video_start_timestamp`: recording-clock seconds of video t = 0. */
  videoStartS: number;
};

/** `task_name.json`. */
export type AgentNetTask = {
  /** `task_name`: the instruction (non-empty). */
  taskName: string;
  /** `description`; '' when absent or null. */
  description: string;
};

/** One timed tree from `a11y.jsonl` (`axtree`) or `element.jsonl` (`a11y_tree`, may be `[]`). */
export type AgentNetTreeRow = {
  /** `time_stamp`, recording-clock seconds. */
  tS: number;
  /** The tree exactly as parsed (Windows UIA or macOS AX dump; never interpreted here). */
  tree: unknown;
};

/** One `top_window.jsonl` row. */
export type AgentNetTopWindow = {
  /** `time_stamp`, recording-clock seconds. */
  tS: number;
  /** `top_window_name` (process name on Windows, window owner on macOS). */
  name: string;
};

/** Line-aligned reduced rows (blank lines dropped; complete[i] pairs with vis[i]). */
export type AgentNetReducedRows = {
  /** `reduced_events_complete.jsonl` rows: geometry, description, timing. */
  complete: Record<string, unknown>[];
  /** `reduced_events_vis.jsonl` rows: the annotator's labels (`action`). */
  vis: Record<string, unknown>[];
  /** 1-based source line of each row in each file, for later error messages. */
  lines: { complete: number[]; vis: number[] };
};

/** A top-level file of the folder (sub-folders such as `video_clips/` are not listed). */
export type AgentNetFileEntry = {
  /** File name (no directory part). */
  name: string;
  /** Size in bytes. */
  bytes: number;
};

/** Everything read from one AgentNet folder, validated. */
export type AgentNetBundle = {
  /** Absolute path of the folder. */
  dir: string;
  /** Folder name: the upstream `episode_id`. */
  folderName: string;
  /** `metadata.json`. */
  metadata: AgentNetMetadata;
  /** `task_name.json`. */
  task: AgentNetTask;
  /** `hub_task_id.txt` trimmed, or null when absent/empty. */
  hubTaskId: string | null;
  /** Absolute path of the one top-level `*.mp4`. */
  videoPath: string;
  /** Its file name. */
  videoFileName: string;
  /** `events.jsonl` mapped to raw events (idx = `event_idx`, tMs = `time_stamp` × 1000 exactly). */
  events: RawEvent[];
  /** `reduced_events_complete.jsonl` / `reduced_events_vis.jsonl`, line-aligned. */
  reduced: AgentNetReducedRows;
  /** `a11y.jsonl` window trees; [] when the file is absent. */
  a11y: AgentNetTreeRow[];
  /** `element.jsonl` element trees (one per press); [] when absent. */
  elements: AgentNetTreeRow[];
  /** `top_window.jsonl`; [] when absent. */
  topWindows: AgentNetTopWindow[];
  /** Every top-level file, sorted by name, for byte-for-byte copying into the raw layer. */
  files: AgentNetFileEntry[];
  /** Non-fatal findings, each `CODE: detail` (`ALIGNMENT_SUSPECT`, `UNKNOWN_EVENT`). */
  warnings: string[];
};

/**
 * Reads and fully validates an AgentNet folder; throws a coded AppError on the first problem.
 * Checks run in a fixed order (task, metadata, video, events, reduced rows, context streams).
 * `events.jsonl` is required (it is the re-reduction source) but may hold zero events.
 */
export async function readAgentNetFolder(dir: string): Promise<AgentNetBundle> {
  const absDir = path.resolve(dir);
  const files = await listTopLevelFiles(absDir);
  const present = new Set(files.map((f) => f.name));

  // Read in parallel, decode and validate sequentially: the reported problem must not depend on
  // which read finished first.
  const load = (name: string): Promise<LoadedFile> => loadFile(absDir, name, present);
  const [task, metadata, events, complete, vis, a11y, element, topWindow, hubTaskId] =
    await Promise.all([
      load(AGENTNET_FILES.task),
      load(AGENTNET_FILES.metadata),
      load(AGENTNET_FILES.events),
      load(AGENTNET_FILES.reducedComplete),
      load(AGENTNET_FILES.reducedVis),
      load(AGENTNET_FILES.a11y),
      load(AGENTNET_FILES.element),
      load(AGENTNET_FILES.topWindow),
      load(AGENTNET_FILES.hubTaskId),
    ]);

  // Validation order is fixed so that a folder with several defects always reports the same one.
  const parsedTask = parseTask(requiredText(AGENTNET_FILES.task, task));
  const parsedMetadata = parseMetadata(requiredText(AGENTNET_FILES.metadata, metadata));
  const videoFileName = pickVideo(files);
  const videoPath = path.join(absDir, videoFileName);
  await checkVideo(videoPath, videoFileName);
  const eventsText = requiredText(AGENTNET_FILES.events, events);
  assertNotEncrypted(AGENTNET_FILES.events, eventsText);
  const parsedEvents = parseAgentNetEvents(eventsText, AGENTNET_FILES.events);
  const reduced = parseReduced(
    requiredText(AGENTNET_FILES.reducedComplete, complete),
    requiredText(AGENTNET_FILES.reducedVis, vis),
  );
  const a11yText = optionalText(AGENTNET_FILES.a11y, a11y);
  const elementText = optionalText(AGENTNET_FILES.element, element);
  const topWindowText = optionalText(AGENTNET_FILES.topWindow, topWindow);
  const hubTaskIdText = optionalText(AGENTNET_FILES.hubTaskId, hubTaskId)?.trim() ?? '';

  const warnings = [...parsedEvents.warnings];
  const firstStart = reduced.complete[0]?.start_time;
  if (firstStart === parsedMetadata.videoStartS) {
    warnings.push(
      `${WARN_ALIGNMENT_SUSPECT}: video_start_timestamp equals the first step's start_time ` +
        `(${parsedMetadata.videoStartS}); a cut recording whose video may be misaligned`,
    );
  }

  return {
    dir: absDir,
    folderName: path.basename(absDir),
    metadata: parsedMetadata,
    task: parsedTask,
    hubTaskId: hubTaskIdText === '' ? null : hubTaskIdText,
    videoPath,
    videoFileName,
    events: parsedEvents.events,
    reduced,
    a11y: a11yText === null ? [] : parseTreeRows(AGENTNET_FILES.a11y, a11yText, 'axtree'),
    elements:
      elementText === null ? [] : parseTreeRows(AGENTNET_FILES.element, elementText, 'a11y_tree'),
    topWindows: topWindowText === null ? [] : parseTopWindows(topWindowText),
    files,
    warnings,
  };
}

async function listTopLevelFiles(absDir: string): Promise<AgentNetFileEntry[]> {
  let entries;
  try {
    entries = await readdir(absDir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'folder does not exist'
        : code === 'ENOTDIR'
          ? 'not a folder'
          : `folder cannot be read (${errnoText(e)})`;
    throw importInvalid({ file: absDir }, problem);
  }
  const candidates = entries.filter((e) => e.isFile() || e.isSymbolicLink());
  const stats = await Promise.all(
    candidates.map(async (e) => {
      try {
        return await stat(path.join(absDir, e.name));
      } catch {
        return null; // dangling symlink: not a file we can copy
      }
    }),
  );
  const files: AgentNetFileEntry[] = [];
  candidates.forEach((e, i) => {
    const s = stats[i];
    if (s?.isFile()) {
      files.push({ name: e.name, bytes: s.size });
    }
  });
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// docs/agentnet-raw-format.md §1: the pipeline takes the first `*.mp4` in listing order, so more
// than one is ambiguous.
function pickVideo(files: AgentNetFileEntry[]): string {
  const videos = files.filter((f) => f.name.endsWith('.mp4')).map((f) => f.name);
  const [first] = videos;
  if (first === undefined) {
    throw importInvalid(
      { file: AGENTNET_VIDEO_PATTERN },
      'no video: expected exactly one top-level .mp4 file',
    );
  }
  if (videos.length > 1) {
    throw importInvalid(
      { file: AGENTNET_VIDEO_PATTERN },
      `${videos.length} top-level .mp4 files (${videos.join(', ')}); expected exactly one`,
    );
  }
  return first;
}

// A file's bytes, null when the folder has no such file, or the read failure (thrown in order).
type LoadedFile = Uint8Array | null | AppError;

async function loadFile(absDir: string, name: string, present: Set<string>): Promise<LoadedFile> {
  if (!present.has(name)) {
    return null;
  }
  try {
    return await readFile(path.join(absDir, name));
  } catch (e) {
    return importInvalid({ file: name }, `file cannot be read (${errnoText(e)})`);
  }
}

function optionalText(file: string, loaded: LoadedFile): string | null {
  if (loaded instanceof AppError) {
    throw loaded;
  }
  return loaded === null ? null : decodeUtf8(file, loaded);
}

function requiredText(file: string, loaded: LoadedFile): string {
  const text = optionalText(file, loaded);
  if (text === null) {
    throw importInvalid({ file }, 'required file is missing');
  }
  return text;
}

async function checkVideo(videoPath: string, videoFileName: string): Promise<void> {
  let head: Uint8Array;
  try {
    head = await readFileHead(videoPath);
  } catch (e) {
    throw importInvalid({ file: videoFileName }, `video cannot be read (${errnoText(e)})`);
  }
  const problem = mp4HeaderProblem(head);
  if (problem !== null) {
    throw importInvalid({ file: videoFileName }, problem);
  }
}

function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code ?? (e instanceof Error ? e.message : String(e));
}

function parseWholeJson(file: string, text: string): Record<string, unknown> {
  assertNotEncrypted(file, text);
  return parseJsonObject(file, text, undefined);
}

function parseTask(text: string): AgentNetTask {
  const file = AGENTNET_FILES.task;
  const row = parseWholeJson(file, text);
  const loc: SourceLocation = { file };
  const taskName = stringField(row, 'task_name', loc);
  if (taskName.trim() === '') {
    throw importInvalid(loc, 'field "task_name" is empty');
  }
  return { taskName, description: optionalStringField(row, 'description', loc) ?? '' };
}

function parseMetadata(text: string): AgentNetMetadata {
  const file = AGENTNET_FILES.metadata;
  const raw = parseWholeJson(file, text);
  const loc: SourceLocation = { file };
  return {
    raw,
    screenWidth: positiveIntegerField(raw, 'screen_width', loc),
    screenHeight: positiveIntegerField(raw, 'screen_height', loc),
    videoStartS: finiteNumberField(raw, 'video_start_timestamp', loc),
  };
}

function parseJsonLines(
  file: string,
  text: string,
): { line: number; row: Record<string, unknown> }[] {
  assertNotEncrypted(file, text);
  return nonBlankLines(text).map(({ line, text: lineText }: TextLine) => ({
    line,
    row: parseJsonObject(file, lineText, line),
  }));
}

// docs/agentnet-raw-format.md §10–11: both files hold one row per step, line-aligned; ids unique
// (gaps allowed).
function parseReduced(completeText: string, visText: string): AgentNetReducedRows {
  const completeFile = AGENTNET_FILES.reducedComplete;
  const visFile = AGENTNET_FILES.reducedVis;
  const complete = parseJsonLines(completeFile, completeText);
  const vis = parseJsonLines(visFile, visText);
  const firstLineOfId = new Map<number, number>();
  for (const { line, row } of complete) {
    const loc: SourceLocation = { file: completeFile, line };
    stringField(row, 'action', loc);
    stringField(row, 'description', loc);
    const id = integerField(row, 'id', loc);
    finiteNumberField(row, 'start_time', loc);
    // end_time is null (or absent) on upstream scroll rows (§14).
    optionalFiniteNumberField(row, 'end_time', loc);
    const previous = firstLineOfId.get(id);
    if (previous !== undefined) {
      throw importInvalid(loc, `duplicate id ${id} (first on line ${previous})`);
    }
    firstLineOfId.set(id, line);
  }
  for (const { line, row } of vis) {
    const loc: SourceLocation = { file: visFile, line };
    stringField(row, 'action', loc);
    optionalStringField(row, 'description', loc);
    integerField(row, 'id', loc);
    finiteNumberField(row, 'start_time', loc);
    optionalFiniteNumberField(row, 'end_time', loc);
  }
  if (complete.length !== vis.length) {
    throw importInvalid(
      { file: visFile },
      `${complete.length} lines in complete vs ${vis.length} in vis`,
    );
  }
  complete.forEach((c, i) => {
    const v = vis[i];
    if (v === undefined) {
      return;
    }
    const loc: SourceLocation = { file: visFile, line: v.line };
    if (v.row.id !== c.row.id) {
      throw importInvalid(
        loc,
        `id ${String(v.row.id)} does not match id ${String(c.row.id)} on line ${c.line} of ` +
          completeFile,
      );
    }
    if (v.row.start_time !== c.row.start_time) {
      throw importInvalid(
        loc,
        `start_time ${String(v.row.start_time)} of id ${String(v.row.id)} does not match ` +
          `${String(c.row.start_time)} on line ${c.line} of ${completeFile}`,
      );
    }
  });
  return {
    complete: complete.map((c) => c.row),
    vis: vis.map((v) => v.row),
    lines: { complete: complete.map((c) => c.line), vis: vis.map((v) => v.line) },
  };
}

function parseTreeRows(file: string, text: string, treeField: string): AgentNetTreeRow[] {
  return parseJsonLines(file, text).map(({ line, row }) => {
    const loc: SourceLocation = { file, line };
    const tS = finiteNumberField(row, 'time_stamp', loc);
    const tree = requireField(row, treeField, loc);
    if (tree === null || typeof tree !== 'object') {
      throw importInvalid(loc, `field "${treeField}" must be an object or an array`);
    }
    return { tS, tree };
  });
}

function parseTopWindows(text: string): AgentNetTopWindow[] {
  const file = AGENTNET_FILES.topWindow;
  return parseJsonLines(file, text).map(({ line, row }) => {
    const loc: SourceLocation = { file, line };
    return {
      tS: finiteNumberField(row, 'time_stamp', loc),
      name: stringField(row, 'top_window_name', loc),
    };
  });
}
