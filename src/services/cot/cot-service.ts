// Runs OpenCUA's reflective CoT synthesis on recordings of the library (docs/cot.md §5): per
// recording, the steps the library does not hold yet (or holds stale) are asked for and stored one
// by one, then the summary; an interrupted run resumes at the next step and pays nothing twice.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  deleteCotStepsFrom,
  getCotSummary,
  listCotSteps,
  saveCotStep,
  saveCotSummary,
  type StoredCotStep,
} from '../../store';
import { runCot, type CotRunOutcome, type CotStepResult } from '../../pipeline/cot/run';
import type { ChatClient } from '../../pipeline/cot/types';
import type { Library } from '../library/library';
import { readCotInputs } from './cot-inputs';

/** Progress of one recording's run. */
export type CotProgress = {
  recordingId: string;
  /** Steps finished (generated or already stored). */
  done: number;
  total: number;
  phase: 'step' | 'summary';
  isReused: boolean;
};

/** Options of {@link runCotOnRecording}. */
export type CotServiceOptions = {
  client: ChatClient;
  /** The model's name, stored with each row. */
  model: string;
  /** Upstream --need_double_check. Default false. */
  isDoubleCheck?: boolean;
  /** Reproduce upstream's output-changing defects (docs/cot.md §6). Default false. */
  isUpstreamQuirks?: boolean;
  /** ffmpeg for recordings whose keyframes are not stored (resolved when absent). */
  ffmpegPath?: string;
  signal?: AbortSignal;
  onProgress?: (p: CotProgress) => void;
  /** Clock for the rows' times (epoch ms). */
  now?: () => number;
};

/** What one recording's run did. */
export type CotRecordingOutcome = CotRunOutcome & { recordingId: string; totalSteps: number };

/** Runs (or resumes) the CoT of recording `id`. */
export async function runCotOnRecording(
  lib: Library,
  id: string,
  options: CotServiceOptions,
): Promise<CotRecordingOutcome> {
  const now = options.now ?? Date.now;
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cua-cot-'));
  try {
    // the run's options (double check, upstream quirks) are not in the fingerprints: they say how
    // missing or stale steps are made, and stored rows are kept whatever options made them
    // (docs/cot.md §5; --redo makes them all again)
    const inputs = await readCotInputs(lib, id, {
      workDir,
      ffmpegPath: options.ffmpegPath,
    });
    const seq = inputs.loaded.rec.seq;
    const total = inputs.steps.length;
    // rows past the trajectory's end (steps deleted since) are not part of it any more
    deleteCotStepsFrom(lib.db, seq, total);
    const stored = new Map(listCotSteps(lib.db, seq).map((s) => [s.index, resultOf(s)]));
    const outcome = await runCot(
      {
        goal: inputs.goal,
        steps: inputs.steps,
        stored,
        storedSummary: getCotSummary(lib.db, seq),
        summaryInputSha256: inputs.summaryInputSha256,
      },
      {
        client: options.client,
        image: inputs.image,
        saveStep: (s) =>
          saveCotStep(lib.db, seq, rowOf(s, inputs.steps[s.index]!.code, options.model, now())),
        saveSummary: (s) =>
          saveCotSummary(lib.db, seq, {
            inputSha256: s.inputSha256,
            fields: s.fields,
            model: options.model,
            ...s.usage,
            editedAtMs: null,
            createdAtMs: now(),
          }),
      },
      {
        isDoubleCheck: options.isDoubleCheck ?? false,
        isUpstreamQuirks: options.isUpstreamQuirks ?? false,
        signal: options.signal,
        onProgress: (p) =>
          options.onProgress?.({
            recordingId: id,
            done: p.done,
            total,
            phase: p.index === 'summary' ? 'summary' : 'step',
            isReused: p.isReused,
          }),
      },
    );
    return { ...outcome, recordingId: id, totalSteps: total };
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

function resultOf(s: StoredCotStep): CotStepResult {
  return {
    index: s.index,
    inputSha256: s.inputSha256,
    observation: s.observation,
    thought: s.thought,
    action: s.action,
    lastStepCorrect: s.lastStepCorrect,
    lastStepRedundant: s.lastStepRedundant,
    reflection: s.reflection,
    verdictSource: s.verdictSource,
    usage: { calls: s.calls, promptTokens: s.promptTokens, completionTokens: s.completionTokens },
  };
}

function rowOf(s: CotStepResult, code: string, model: string, nowMs: number): StoredCotStep {
  return {
    index: s.index,
    inputSha256: s.inputSha256,
    code,
    observation: s.observation,
    thought: s.thought,
    action: s.action,
    lastStepCorrect: s.lastStepCorrect,
    lastStepRedundant: s.lastStepRedundant,
    reflection: s.reflection,
    verdictSource: s.verdictSource,
    model,
    ...s.usage,
    editedAtMs: null,
    createdAtMs: nowMs,
  };
}
