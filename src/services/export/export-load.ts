// Reading a recording for an export: its rows and effective steps (and every row its format will
// read: formats.ts), its video verified against the stored SHA-256, its episode id, and which
// failures mean "this recording is damaged" rather than "the export cannot be done". The kept
// range of a trimmed recording is kept-video.ts.
import type { StepMark } from '../../shared/contract';
import type { ExportFormat, RecordingDetail, Step } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { TrimWindow } from '../../pipeline/export/kept-range';
import { sha256File } from '../../pipeline/io/hash';
import { countEvents, getRecording } from '../../store';
import { textRedactorOf } from '../privacy/text-redaction';
import type { Library } from '../library/library';
import { effectiveStepState } from '../steps';
import { errnoOf } from './export-target';
import { exportFormatOf } from './formats';

/** A recording read for an export. */
export type Loaded = {
  rec: RecordingDetail & { seq: number };
  steps: Step[];
  marks: Map<string, StepMark>;
  episodeId: string;
  videoPath: string;
  /** The trim of the edit log (exports leave the trimmed-out time out: kept-range.ts). */
  trim: TrimWindow;
};

/** A recording left out of an export (`skipDamaged`), with the reason. */
export type SkippedRecording = { id: string; code: string; message: string };

/** The id that names a recording's outputs (AgentNet `episode_id`). */
export function episodeIdOf(rec: RecordingDetail): string {
  // a folder imported again with --allow-duplicate carries a distinct name
  const episodeName = rec.sourceMetadata?.episodeName;
  if (typeof episodeName === 'string' && episodeName) {
    return episodeName;
  }
  const folder = rec.sourceMetadata?.folderName;
  if (rec.source === 'agentnet-import' && typeof folder === 'string' && folder) {
    return folder;
  }
  const stamp = new Date(rec.createdAtMs).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${stamp}_local_${rec.id}`;
}

// Errors that mean "this recording is damaged" (its rows, its video) rather than "the export
// cannot be done": `export --all` names these up front, `--skip-damaged` leaves them out.
const DAMAGE_CODES = new Set<string>([
  'DB_CORRUPT',
  'INTEGRITY_FAILED',
  'VIDEO_MISSING',
  'VIDEO_UNREADABLE',
  'FFMPEG_FAILED',
]);

// A recording with no step to export. Without input (zero events) nothing can give it steps:
// the fix is to delete it or record again, and `export --all` skips it (issue 26 item 19).
function noStepsError(lib: Library, id: string, seq: number): AppError {
  const events = countEvents(lib.db, seq).total;
  if (events === 0) {
    return new AppError(
      'EXPORT_INVALID',
      `Recording ${id} has no steps: no input was recorded (0 events), so there is nothing to export.`,
      { recordingId: id, reason: NO_STEPS },
      `Delete it (cua-annotator delete ${id}) or record again; \`export --all\` skips it.`,
    );
  }
  return new AppError(
    'EXPORT_INVALID',
    `Recording ${id} has no steps (${events} input events, none of them an action, or every step deleted in review), so there is nothing to export.`,
    { recordingId: id, reason: NO_STEPS },
    `Run \`cua-annotator reduce ${id}\` (or undo the deletions on its review page); if it still has no steps, delete it (cua-annotator delete ${id}) or record again.`,
  );
}

const NO_STEPS = 'no-steps';

/** True when `e` is the error of a recording with no step to export ({@link loadForExport}). */
export function isNoStepsError(e: unknown): e is AppError {
  return e instanceof AppError && e.details?.reason === NO_STEPS;
}

/** True when `e` means the recording is damaged (anything uncoded while reading rows, too). */
export function isDamage(e: unknown): boolean {
  // anything not coded while reading rows (SQLITE_CORRUPT, malformed JSON) is damage too
  return !(e instanceof AppError) || DAMAGE_CODES.has(e.code);
}

/** The skipped-recording entry of a damage error. */
export function damageOf(id: string, e: unknown): SkippedRecording {
  return e instanceof AppError
    ? { id, code: e.code, message: e.message }
    : {
        id,
        code: 'DB_CORRUPT',
        message: `Recording ${id}: its rows cannot be read (${String((e as Error)?.message ?? e)}).`,
      };
}

/** The EXPORT_DAMAGED error naming every damaged recording. */
export function damagedError(damaged: SkippedRecording[]): AppError {
  return new AppError(
    'EXPORT_DAMAGED',
    `${damaged.length} recording(s) cannot be exported, so nothing was written:\n` +
      damaged.map((d) => `  ${d.id}: [${d.code}] ${d.message}`).join('\n'),
    { damaged },
    'Pass --skip-damaged to export the others, or repair or delete the damaged recordings.',
  );
}

/** Checks a library video against the SHA-256 stored when it entered the library. */
export async function verifyVideo(
  lib: Library,
  recordingId: string,
  video: { path: string; sha256: string | null },
): Promise<string> {
  const videoPath = lib.resolve(video.path);
  let actual: string;
  try {
    actual = await sha256File(videoPath);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') {
      throw new AppError(
        'VIDEO_MISSING',
        `Recording ${recordingId}: its video ${video.path} is missing from the library.`,
        { recordingId, file: video.path },
        `Put the video back or delete the recording (cua-annotator delete ${recordingId}).`,
      );
    }
    throw e;
  }
  if (video.sha256 && actual !== video.sha256) {
    throw new AppError(
      'INTEGRITY_FAILED',
      `Recording ${recordingId}: its video ${video.path} has changed since it entered the library ` +
        `(SHA-256 ${actual.slice(0, 12)}…, stored ${video.sha256.slice(0, 12)}…); it is not exported.`,
      { recordingId, file: video.path, expectedSha256: video.sha256, actualSha256: actual },
      'Restore the video from a backup or re-import the recording from its source folder.',
    );
  }
  return videoPath;
}

/** Reads recording `id` for an export in `format`: every row it will read, and its video
 * (checked against its SHA-256 unless the caller has just done so: `isVerified`). */
export async function loadForExport(
  lib: Library,
  id: string,
  format: ExportFormat,
  options: { isVerified?: boolean } = {},
): Promise<Loaded> {
  const definition = exportFormatOf(format);
  const found = getRecording(lib.db, id);
  const state = effectiveStepState(lib, found.seq);
  // text redactions (issue 14): the steps (write messages before code is formatted,
  // descriptions, labels) and the recording's texts leave with placeholders
  const redactor = textRedactorOf(lib, found.seq);
  const rec = redactor.value(found);
  const steps = redactor.value(state.steps);
  const { marks, trim } = state;
  const video = rec.videos[0];
  if (!video) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${rec.id} has no video; nothing can be exported.`,
    );
  }
  if (!steps.length) {
    throw noStepsError(lib, rec.id, found.seq);
  }
  // every row the export will read, so a damaged page stops the run before anything is written
  definition.readRows(lib, rec.seq);
  const videoPath = options.isVerified
    ? lib.resolve(video.path)
    : await verifyVideo(lib, rec.id, video);
  return { rec, steps, marks, episodeId: episodeIdOf(rec), videoPath, trim };
}

/** Recordings that share an episode name get their own: the first (in library order) keeps it,
 * the others get `_<first 8 characters of their id>`. */
export function assignEpisodeIds(loaded: Loaded[]): void {
  const groups = new Map<string, Loaded[]>();
  for (const l of loaded) {
    groups.set(l.episodeId, [...(groups.get(l.episodeId) ?? []), l]);
  }
  const taken = new Set(groups.keys());
  for (const [name, group] of groups) {
    if (group.length < 2) {
      continue;
    }
    group.sort((a, b) => a.rec.seq - b.rec.seq);
    for (const l of group.slice(1)) {
      let candidate = `${name}_${l.rec.id.slice(0, 8)}`;
      for (let n = 2; taken.has(candidate); n += 1) {
        candidate = `${name}_${l.rec.id.slice(0, 8)}_${n}`;
      }
      taken.add(candidate);
      l.episodeId = candidate;
    }
  }
}
