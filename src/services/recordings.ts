// Library queries and deletion used by every host.
import fs from 'node:fs';
import path from 'node:path';
import type { RecordingDetail, RecordingSummary, Step } from '../shared/domain';
import { msToSeconds } from '../shared/clock';
import { deleteRecordingRow, getRecording, listRecordings, type RecordingFilter } from '../store';
import { callsToCode } from '../pipeline/code';
import type { Library } from './library/library';
import { effectiveSteps } from './steps';

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

/** Deletes a recording: the row (with everything keyed to it) and its folder. */
export function deleteRecording(lib: Library, idOrPrefix: string): { id: string } {
  const detail = getRecording(lib.db, idOrPrefix);
  const folder = lib.resolve(detail.dir);
  // Move the files aside first so a failed delete never leaves a row without its files.
  const trash = path.join(lib.dir, '.trash', `${detail.id}-${Date.now()}`);
  const hasFolder = fs.existsSync(folder);
  if (hasFolder) {
    fs.mkdirSync(path.dirname(trash), { recursive: true });
    fs.renameSync(folder, trash);
  }
  try {
    lib.db.transaction(() => deleteRecordingRow(lib.db, detail.seq))();
  } catch (e) {
    if (hasFolder) {
      fs.renameSync(trash, folder);
    }
    throw e;
  }
  if (hasFolder) {
    fs.rmSync(trash, { recursive: true, force: true });
  }
  return { id: detail.id };
}
