// The input fingerprints of a recording's CoT (docs/cot.md §5): a step is stale when its
// fingerprint changes. Pure, so the export's CoT fields (cot-export.ts) compute them without
// loading the CoT job's reader (cot-inputs.ts, which reads recordings through the export).
import crypto from 'node:crypto';
import type { StepMark } from '../../shared/contract';
import type { TrajectoryStep } from '../../pipeline/export/trajectory';
import type { Loaded } from '../export/export-load';

const sha256 = (parts: unknown) =>
  crypto.createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/**
 * The input fingerprint of every trajectory step and of the summary: a step's covers the goal, its
 * position (and whether it is the last), its code, the reviewer's mark, its screenshot and the next
 * one (the reflector's), and the fingerprint of the step before it (its history). A step whose
 * fingerprint differs from its stored row's is stale, and so is every step after it.
 */
export function cotFingerprints(
  goal: string,
  trajectory: readonly Pick<TrajectoryStep, 'code'>[],
  marks: readonly (StepMark | null)[],
  pngs: readonly Uint8Array[],
): { steps: string[]; summary: string } {
  const imageSha = pngs.map((png) => crypto.createHash('sha256').update(png).digest('hex'));
  const total = trajectory.length;
  let previous = '';
  const steps = trajectory.map((t, index) => {
    previous = sha256([
      previous,
      goal,
      index,
      index === total - 1,
      t.code,
      marks[index] ?? null,
      imageSha[index] ?? null,
      imageSha[index + 1] ?? null,
    ]);
    return previous;
  });
  return { steps, summary: sha256(['summary', total, previous]) };
}

/** The reviewer's mark of each trajectory step (the mark of the reduced step it shows). */
export function trajectoryMarks(
  loaded: Pick<Loaded, 'steps' | 'marks'>,
  trajectory: readonly TrajectoryStep[],
): (StepMark | null)[] {
  return trajectory.map((t) => {
    const step = loaded.steps[t.imageIndex];
    return (step && loaded.marks.get(step.id)) ?? null;
  });
}
