// Builds the text files of an AgentNet raw recording folder that OpenCUA's data-process scripts
// accept unchanged (agentnet-raw-format.md §13). The video is copied by the caller.
import { msToSeconds } from '../../shared/clock';
import type { RawEvent, Step } from '../../shared/domain';
import { agentNetRowsOf } from './agentnet-rows';
import { buildEventsJsonl } from './agentnet-events';
import { pyJsonDumps } from './python-json';

/** A timed tree or window name, seconds on the recording clock. */
export type TimedTree = { tS: number; tree: unknown };

/** Everything the AgentNet raw exporter needs. */
export type AgentNetRawInput = {
  task: { taskName: string; description: string };
  /** metadata.json object; `x_recorder` is (over)written with `provenance`. */
  metadata: Record<string, unknown>;
  /** Our provenance block (app version, reducer version, clock source, capture backend, …). */
  provenance: Record<string, unknown>;
  videoStartS: number;
  events: readonly RawEvent[];
  steps: readonly Step[];
  a11y: readonly TimedTree[];
  elements: readonly TimedTree[];
  topWindows: readonly { tS: number; name: string }[];
};

/** A warning about one step (e.g. unrepresentable), exported alongside the files. */
export type ExportWarning = { stepId: string; message: string };

/** The built folder: file name → content, plus per-step warnings. */
export type AgentNetRawFolder = { files: Map<string, string>; warnings: ExportWarning[] };

function jsonl(rows: readonly unknown[], sortKeys = false): string {
  return rows.map((r) => `${pyJsonDumps(r, { ensureAscii: false, sortKeys })}\n`).join('');
}

/** Builds every text file of the folder. */
export function buildAgentNetRawFolder(input: AgentNetRawInput): AgentNetRawFolder {
  const { text: eventsText, rowOfIdx } = buildEventsJsonl(input.events);
  const eventsByIdx = new Map(input.events.map((e) => [e.idx, e]));
  const complete: Record<string, unknown>[] = [];
  const vis: Record<string, unknown>[] = [];
  const warnings: ExportWarning[] = [];
  let nextId = 0;
  for (const step of input.steps) {
    const pair = agentNetRowsOf(step, {
      eventsByIdx,
      rowOfIdx,
      videoStartS: input.videoStartS,
      id: nextId,
    });
    if ('skipped' in pair) {
      warnings.push({ stepId: step.id, message: pair.skipped });
      continue;
    }
    if (pair.complete.end_time === null || pair.complete.end_time === undefined) {
      pair.complete.end_time = msToSeconds(step.endMs);
    }
    complete.push(pair.complete);
    vis.push(pair.vis);
    const id = pair.complete.id;
    nextId = (typeof id === 'number' ? id : nextId) + 1;
  }
  // Imported rows keep their ids (gaps allowed); when edits mixed rebuilt rows in and the ids
  // no longer strictly increase, every row is renumbered 0..n-1 in both files (spec §13.5).
  const ids = complete.map((c) => c.id);
  const isIncreasing = ids.every(
    (id, i) => typeof id === 'number' && (i === 0 || id > (ids[i - 1] as number)),
  );
  if (!isIncreasing) {
    complete.forEach((c, i) => {
      complete[i] = { ...c, id: i };
      vis[i] = { ...vis[i], id: i };
    });
  }
  const metadata = { ...input.metadata, x_recorder: input.provenance };
  const files = new Map<string, string>([
    [
      'task_name.json',
      pyJsonDumps(
        { task_name: input.task.taskName, description: input.task.description },
        { indent: 4, ensureAscii: false },
      ),
    ],
    ['metadata.json', pyJsonDumps(metadata, { indent: 4, ensureAscii: false })],
    ['events.jsonl', eventsText],
    ['reduced_events_complete.jsonl', jsonl(complete)],
    ['reduced_events_vis.jsonl', jsonl(vis, true)],
    ['a11y.jsonl', jsonl(input.a11y.map((r) => ({ time_stamp: r.tS, axtree: r.tree })))],
    ['element.jsonl', jsonl(input.elements.map((r) => ({ time_stamp: r.tS, a11y_tree: r.tree })))],
    [
      'top_window.jsonl',
      jsonl(input.topWindows.map((w) => ({ time_stamp: w.tS, top_window_name: w.name }))),
    ],
  ]);
  return { files, warnings };
}
