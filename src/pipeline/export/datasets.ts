// Dataset JSONL records: the CoT input bridge (byte-exact with upstream, docs/pyautogui-code.md §5.1)
// and the AgentNet release record (§5.2) with unknown fields null, never invented.
import { pyJsonDumps } from './python-json';
import type { TrajectoryStep } from './trajectory';

/** The CoT input line (one trajectory) as Python's json.dumps writes it, with its newline. */
export function buildCotInputLine(
  taskId: string,
  instruction: string,
  steps: readonly TrajectoryStep[],
): string {
  return `${pyJsonDumps({
    task_id: taskId,
    instruction,
    traj: steps.map((s, i) => ({ index: i, image: `${i}.png`, value: { code: s.code } })),
  })}\n`;
}

/** Task-level labels known for a recording; absent values are exported as null. */
export type TaskLabels = {
  taskCompleted: boolean | null;
  alignmentScore: number | null;
  efficiencyScore: number | null;
  taskDifficulty: number | null;
  reason: string | null;
  naturalLanguageTask: string | null;
  actualTask: string | null;
};

/** Per-step review marks, when a reviewer gave them. */
export type StepMarks = { lastStepCorrect: boolean | null; lastStepRedundant: boolean | null };

/** Builds one AgentNet dataset record line (JSON, raw UTF-8, newline-terminated). */
export function buildAgentNetRecordLine(input: {
  taskId: string;
  instruction: string;
  labels: TaskLabels;
  steps: readonly TrajectoryStep[];
  imageName: (index: number) => string;
  marks?: (index: number) => StepMarks;
}): string {
  const l = input.labels;
  const record = {
    task_id: input.taskId,
    instruction: input.instruction,
    task_completed: l.taskCompleted,
    alignment_score: l.alignmentScore,
    efficiency_score: l.efficiencyScore,
    task_difficulty: l.taskDifficulty,
    reason: l.reason,
    natural_language_task: l.naturalLanguageTask,
    actual_task: l.actualTask,
    traj: input.steps.map((s, i) => {
      const m = input.marks?.(i) ?? { lastStepCorrect: null, lastStepRedundant: null };
      return {
        index: i,
        image: input.imageName(i),
        value: {
          code: s.code,
          observation: null,
          thought: null,
          action: s.instruction,
          last_step_correct: m.lastStepCorrect,
          last_step_redundant: m.lastStepRedundant,
          reflection: null,
        },
      };
    }),
  };
  return `${JSON.stringify(record)}\n`;
}
