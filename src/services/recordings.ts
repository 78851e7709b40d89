// Library queries and deletion used by every host.
import fs from 'node:fs';
import path from 'node:path';
import type { RecordingDetail, RecordingSummary, Step } from '../shared/domain';
import { msToSeconds } from '../shared/clock';
import { AppError } from '../shared/errors';
import { classifySystemError } from '../shared/system-error';
import {
  deleteRecordingRow,
  getCapture,
  getRecording,
  listEditedStepCounts,
  listRecordings,
  setStepCount,
  type RecordingFilter,
} from '../store';
import { callsToCode } from '../pipeline/code';
import { releaseSpaceReserve, TRASH_DIR, trashEntryName } from './library/cleanup';
import type { Library } from './library/library';
import { effectiveSteps, effectiveStepState } from './steps';
import { isProcessAlive } from '../infra/process-alive';

/** A step as shown to users and scripts. */
export type StepView = {
  index: number;
  id: string;
  type: string;
  description: string;
  label: string;
  code: string;
  startMs: number;
  endMs: number;
  diagnostics: string[];
};

/** What `show` reports about one recording. */
export type RecordingView = Omit<RecordingDetail, 'sourceMetadata'> & {
  /** First video (the recording's main video), if any. */
  video: {
    path: string;
    width: number;
    height: number;
    fps: number;
    frameCount: number | null;
    durationMs: number;
    /** Recording-clock time of frame 0, ms and s (s is exact in decimal, as AgentNet writes it). */
    startMs: number;
    startS: number;
    startMethod: string;
  } | null;
  steps: StepView[];
};

/** Lists recordings (newest first). */
export function listLibrary(lib: Library, filter: RecordingFilter = {}): RecordingSummary[] {
  return listRecordings(lib.db, filter);
}

/** Stores how many steps the recording shows now (edits applied): call it in the transaction
 * that changed its steps or edits, so `list` and the library page never show a stale count. */
export function storeStepCount(lib: Library, recordingSeq: number): number {
  const count = effectiveStepState(lib, recordingSeq).steps.length;
  setStepCount(lib.db, recordingSeq, count);
  return count;
}

/** Edited recordings whose stored step count is not what they show (counts written before
 * edits kept them); with `fix` the right counts are stored. */
export function staleStepCounts(
  lib: Library,
  options: { fix?: boolean } = {},
): { id: string; stored: number; shown: number }[] {
  const stale: { id: string; stored: number; shown: number; seq: number }[] = [];
  for (const r of listEditedStepCounts(lib.db)) {
    const shown = effectiveStepState(lib, r.seq).steps.length;
    if (shown !== r.stepCount) {
      stale.push({ id: r.id, stored: r.stepCount, shown, seq: r.seq });
    }
  }
  if (options.fix && stale.length) {
    lib.db.transaction(() => {
      for (const r of stale) {
        storeStepCount(lib, r.seq);
      }
    })();
  }
  return stale.map(({ seq: _seq, ...r }) => r);
}

/** Code string of a step, or '' when its calls are unknown. */
export function stepCode(step: Step): string {
  return step.calls.length ? callsToCode(step.calls) : '';
}

/** Everything about one recording, steps (edits applied) with their code. */
export function showRecording(lib: Library, idOrPrefix: string): RecordingView {
  const { seq, sourceMetadata: _meta, ...detail } = getRecording(lib.db, idOrPrefix);
  const first = detail.videos[0];
  const steps = effectiveSteps(lib, seq).map((s): StepView => ({
    index: s.index,
    id: s.id,
    type: s.kind,
    description: s.description,
    label: s.label,
    code: stepCode(s),
    startMs: s.startMs,
    endMs: s.endMs,
    diagnostics: s.diagnostics,
  }));
  return {
    ...detail,
    video: first
      ? {
          path: first.path,
          width: first.width,
          height: first.height,
          fps: first.fps,
          frameCount: first.frameCount,
          durationMs: first.durationMs,
          startMs: first.startMs,
          startS: msToSeconds(first.startMs),
          startMethod: first.startMethod,
        }
      : null,
    steps,
  };
}

// Is `e` the disk (or the database's disk) being full? The one classifier of OS/SQLite codes.
function isDiskFull(e: unknown): boolean {
  return classifySystemError(e)?.code === 'DISK_FULL';
}

/** Deletes a recording: the row (with everything keyed to it) and its folder. A recording whose
 * recorder is still running is refused (RECORDING_ACTIVE); one whose recorder died is recovered
 * first. With the disk full the files go first (that frees the space the database needs to
 * record the delete), and the folder's name in `.trash` keeps track until the row is gone. */
export async function deleteRecording(lib: Library, idOrPrefix: string): Promise<{ id: string }> {
  let detail = getRecording(lib.db, idOrPrefix);
  if (detail.status === 'active') {
    const pid = getCapture(lib.db, detail.seq)?.pid;
    if (isProcessAlive(pid)) {
      throw new AppError(
        'RECORDING_ACTIVE',
        `Recording ${detail.id} is still being recorded (recorder process ${String(pid)}); ` +
          'deleting it now would lose what the recorder is writing.',
        { id: detail.id, pid },
        'Stop the recording first (Ctrl+C in its terminal or the stop hotkey), then delete it.',
      );
    }
    // the recorder died: make the recording whole (and say so) before it is deleted
    const { recoverActiveRecordings } = await import('./recording/crash-recovery');
    await recoverActiveRecordings(lib);
    detail = getRecording(lib.db, detail.id);
  }
  removeRecording(lib, detail.seq, detail.id, lib.resolve(detail.dir));
  return { id: detail.id };
}

// Synchronous from the rename to the last rm, so no other work of this process runs between.
function removeRecording(lib: Library, seq: number, id: string, folder: string): void {
  const trash = path.join(lib.dir, TRASH_DIR, trashEntryName(id));
  const hasFolder = fs.existsSync(folder);
  if (hasFolder) {
    // a rename needs no free space (mkdir writes only for the first delete of a library)
    fs.mkdirSync(path.dirname(trash), { recursive: true });
    fs.renameSync(folder, trash);
  }
  const dropRow = () => lib.db.transaction(() => deleteRecordingRow(lib.db, seq))();
  try {
    dropRow();
  } catch (e) {
    if (!hasFolder || !isDiskFull(e)) {
      if (hasFolder) {
        fs.renameSync(trash, folder);
      }
      throw e;
    }
    // Disk full: free the recording's files (and the library's space reserve), keep the (empty)
    // trash folder as the record that this recording is being deleted, then write the delete
    // with the space that freed.
    emptyFolder(trash);
    releaseSpaceReserve(lib.dir);
    try {
      dropRow();
    } catch (again) {
      if (!isDiskFull(again)) {
        throw again;
      }
      throw new AppError(
        'DISK_FULL',
        `The disk is full: recording ${id}'s files were removed, but the database could not ` +
          'record the delete yet. It is finished the next time the library is opened.',
        { id },
        'Free some space on the disk holding the library, then run any cua-annotator command.',
      );
    }
  }
  if (hasFolder) {
    fs.rmSync(trash, { recursive: true, force: true });
  }
}

function emptyFolder(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}
