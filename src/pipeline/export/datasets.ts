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

/** A step's reasoning from the CoT synthesis (docs/cot.md §7). */
export type CotStepFields = {
  observation: string;
  thought: string;
  action: string;
  lastStepCorrect: boolean;
  lastStepRedundant: boolean;
  reflection: string;
};

/** The CoT of a recording, where the library holds it fresh: per trajectory step (null = none),
 * and the summarizer's JSON object (upstream merges it into the record). */
export type CotRecordFields = {
  steps: readonly (CotStepFields | null)[];
  summary: Record<string, unknown> | null;
};

const SUMMARY_KEYS = {
  taskCompleted: 'task_completed',
  alignmentScore: 'alignment_score',
  efficiencyScore: 'efficiency_score',
  taskDifficulty: 'task_difficulty',
  reason: 'reason',
  naturalLanguageTask: 'natural_language_task',
  actualTask: 'actual_task',
} as const satisfies Record<keyof TaskLabels, string>;

// The reviewer's labels first; where a label is unset, the summarizer's value of the right type.
function withSummary(labels: TaskLabels, summary: Record<string, unknown> | null): TaskLabels {
  if (!summary) {
    return labels;
  }
  const out = { ...labels };
  for (const [key, name] of Object.entries(SUMMARY_KEYS) as [keyof TaskLabels, string][]) {
    const v = summary[name];
    if (out[key] !== null) {
      continue;
    }
    if (key === 'taskCompleted') {
      out.taskCompleted = typeof v === 'boolean' ? v : null;
    } else if (key === 'reason' || key === 'naturalLanguageTask' || key === 'actualTask') {
      out[key] = typeof v === 'string' ? v : null;
    } else {
      out[key] = Number.isSafeInteger(v) ? (v as number) : null;
    }
  }
  return out;
}

// The record's own keys: a summary key among them is not copied over them.
const RECORD_KEYS = new Set<string>([
  'task_id',
  'instruction',
  'traj',
  ...Object.values(SUMMARY_KEYS),
]);

// Every other key of the summarizer's object: upstream's merge (meta.update(eval_result), then
// merge_json.py) writes the object whole, so a key the model adds is in the record too.
function otherSummaryFields(summary: Record<string, unknown> | null): Record<string, unknown> {
  return Object.fromEntries(Object.entries(summary ?? {}).filter(([k]) => !RECORD_KEYS.has(k)));
}

/** Builds one AgentNet dataset record line (JSON, raw UTF-8, newline-terminated). */
export function buildAgentNetRecordLine(input: {
  taskId: string;
  instruction: string;
  labels: TaskLabels;
  steps: readonly TrajectoryStep[];
  imageName: (index: number) => string;
  marks?: (index: number) => StepMarks;
  /** The CoT where the library holds it (upstream's `<stem>_with_cot.jsonl` fields). */
  cot?: CotRecordFields;
}): string {
  const l = withSummary(input.labels, input.cot?.summary ?? null);
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
    ...otherSummaryFields(input.cot?.summary ?? null),
    traj: input.steps.map((s, i) => {
      const m = input.marks?.(i) ?? { lastStepCorrect: null, lastStepRedundant: null };
      const cot = input.cot?.steps[i];
      if (cot) {
        return {
          index: i,
          image: input.imageName(i),
          value: {
            code: s.code,
            observation: cot.observation,
            thought: cot.thought,
            action: cot.action,
            last_step_correct: cot.lastStepCorrect,
            last_step_redundant: cot.lastStepRedundant,
            reflection: cot.reflection,
          },
        };
      }
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
