// Builds the text files of an AgentNet raw recording folder that OpenCUA's data-process scripts
// accept unchanged (docs/agentnet-raw-format.md §13). The video is copied (or cut) by the caller.
// docs/agentnet-raw-export.md (times, trim), docs/agentnet-accessibility-mapping.md (trees).
import { msToSeconds } from '../../shared/clock';
import type { RawEvent, Step } from '../../shared/domain';
import {
  agentNetElementTree,
  agentNetWindowTree,
  type ElementContext,
  withRowRects,
} from '../agentnet/accessibility';
import type { RoleSystem } from '../agentnet/role-map';
import { agentNetRowsOf, type RowAccessibility } from './agentnet-rows';
import { buildEventsJsonl } from './agentnet-events';
import { isKept, type KeptRange } from './kept-range';
import { pyJsonDumps } from './python-json';
import { localTimeZone, toAgentNetWallClock } from './wall-clock';

/** A timed tree or window name, seconds on the recording clock. */
export type TimedTree = {
  tS: number;
  tree: unknown;
  /** Role vocabulary of our trees (default `atspi`); AgentNet trees are written unchanged. */
  system?: RoleSystem;
  /** Window trees: true when a capture budget cut the tree short. */
  truncated?: boolean;
  /** Element records: the queried point (screen px). */
  x?: number | null;
  y?: number | null;
};

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
  /** The part a trim keeps (the caller writes the video cut to the same frames); null = all. */
  kept?: KeptRange | null;
};

/** A warning about one step (e.g. unrepresentable), exported alongside the files. */
export type ExportWarning = { stepId: string; message: string };

/** The built folder: file name → content, plus per-step warnings. */
export type AgentNetRawFolder = { files: Map<string, string>; warnings: ExportWarning[] };

function jsonl(rows: readonly unknown[], sortKeys = false): string {
  return rows.map((r) => `${pyJsonDumps(r, { ensureAscii: false, sortKeys })}\n`).join('');
}

const keptS = (kept: KeptRange | null | undefined, tS: number): boolean => isKept(kept, tS * 1000);

// Window trees and element records as AgentNet shapes, and the per-step lookups rows use.
function accessibilityOf(input: AgentNetRawInput): {
  a11yRows: { time_stamp: number; axtree: unknown }[];
  elementRows: { time_stamp: number; a11y_tree: unknown }[];
  rowAccessibility: RowAccessibility;
} {
  const windows = [...input.a11y]
    .sort((a, b) => a.tS - b.tS)
    .map((r) => ({
      tS: r.tS,
      tree: agentNetWindowTree(r.tree, r.system ?? 'atspi', {
        tS: r.tS,
        complete: r.truncated !== true,
      }),
    }));
  const elements: ElementContext[] = [...input.elements]
    .sort((a, b) => a.tS - b.tS)
    .map((r) => ({
      tMs: r.tS * 1000,
      x: r.x ?? null,
      y: r.y ?? null,
      tree: r.tree,
      system: r.system ?? 'atspi',
    }));
  const rowTrees = new Map<number, unknown>();
  const rowAccessibility: RowAccessibility = {
    elements,
    // the latest snapshot before the step (else the first one), as AgentNet's reducer attaches
    // it (docs/action-reduction.md §A.6); a snapshot taken before a trim's start still describes the
    // screen the step starts on, so it may come from outside the kept range
    windowTreeAt: (startS) => {
      if (!windows.length) {
        return null;
      }
      let i = 0;
      for (let k = 0; k < windows.length && (windows[k]?.tS ?? Infinity) < startS; k += 1) {
        i = k;
      }
      if (!rowTrees.has(i)) {
        rowTrees.set(i, withRowRects(windows[i]?.tree));
      }
      return rowTrees.get(i);
    },
  };
  return {
    a11yRows: windows
      .filter((w) => keptS(input.kept, w.tS))
      .map((w) => ({ time_stamp: w.tS, axtree: w.tree })),
    elementRows: input.elements
      .filter((r) => keptS(input.kept, r.tS))
      .map((r) => ({
        time_stamp: r.tS,
        a11y_tree: agentNetElementTree(r.tree, r.system ?? 'atspi'),
      })),
    rowAccessibility,
  };
}

// The window in front at the start of the kept range joins the kept changes, stamped at the
// range's start (docs/agentnet-raw-export.md §3).
function keptWindows(input: AgentNetRawInput): { time_stamp: number; top_window_name: string }[] {
  const kept = input.kept;
  const rows = input.topWindows.map((w) => ({ time_stamp: w.tS, top_window_name: w.name }));
  if (!kept) {
    return rows;
  }
  const inside = rows.filter((w) => keptS(kept, w.time_stamp));
  const before = rows.filter((w) => w.time_stamp * 1000 < kept.fromMs).pop();
  const startS = msToSeconds(Math.max(kept.fromMs, kept.videoStartMs));
  if (before && !inside.some((w) => w.time_stamp === startS)) {
    inside.unshift({ time_stamp: startS, top_window_name: before.top_window_name });
  }
  return inside;
}

/** Builds every text file of the folder. */
export function buildAgentNetRawFolder(input: AgentNetRawInput): AgentNetRawFolder {
  const kept = input.kept ?? null;
  const events = kept ? input.events.filter((e) => isKept(kept, e.tMs)) : input.events;
  const videoStartS = kept ? msToSeconds(kept.videoStartMs) : input.videoStartS;
  const { text: eventsText, rowOfIdx } = buildEventsJsonl(events);
  const eventsByIdx = new Map(events.map((e) => [e.idx, e]));
  const { a11yRows, elementRows, rowAccessibility } = accessibilityOf(input);
  const complete: Record<string, unknown>[] = [];
  const vis: Record<string, unknown>[] = [];
  const warnings: ExportWarning[] = [];
  let nextId = 0;
  for (const step of input.steps) {
    const pair = agentNetRowsOf(step, {
      eventsByIdx,
      rowOfIdx,
      videoStartS,
      id: nextId,
      accessibility: rowAccessibility,
      isTrimmed: kept !== null,
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
  // no longer strictly increase, every row is renumbered 0..n-1 in both files (docs/agentnet-raw-format.md §13.5).
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
  const files = new Map<string, string>([
    [
      'task_name.json',
      pyJsonDumps(
        { task_name: input.task.taskName, description: input.task.description },
        { indent: 4, ensureAscii: false },
      ),
    ],
    ['metadata.json', pyJsonDumps(metadataOf(input), { indent: 4, ensureAscii: false })],
    ['events.jsonl', eventsText],
    ['reduced_events_complete.jsonl', jsonl(complete)],
    ['reduced_events_vis.jsonl', jsonl(vis, true)],
    ['a11y.jsonl', jsonl(a11yRows)],
    ['element.jsonl', jsonl(elementRows)],
    ['top_window.jsonl', jsonl(keptWindows(input))],
  ]);
  return { files, warnings };
}

// metadata.json: wall-clock strings in AgentNet's form, a cut's video start, our provenance.
function metadataOf(input: AgentNetRawInput): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...input.metadata };
  const provenance: Record<string, unknown> = { ...input.provenance };
  let isConverted = false;
  for (const key of ['start_time', 'stop_time']) {
    if (key in metadata) {
      const value = toAgentNetWallClock(metadata[key]);
      isConverted ||= value !== metadata[key];
      metadata[key] = value;
    }
  }
  if (isConverted) {
    // AgentNet's strings are local time without a zone: say which zone they are in
    const zone = localTimeZone(new Date(String(input.metadata.start_time)));
    provenance.wallClockTimeZone = zone.name;
    provenance.wallClockUtcOffset = zone.utcOffset;
  }
  const kept = input.kept;
  if (kept) {
    // like AgentNet's cut recordings, video_start_timestamp is the cut video's frame 0
    metadata.video_start_timestamp = msToSeconds(kept.videoStartMs);
    provenance.trim = {
      fromTime: Number.isFinite(kept.fromMs) ? msToSeconds(kept.fromMs) : null,
      toTime: Number.isFinite(kept.toMs) ? msToSeconds(kept.toMs) : null,
      sourceVideoStartTimestamp: input.videoStartS,
      sourceFrames: [kept.startFrame, kept.endFrame],
      fps: kept.fps,
    };
  }
  return { ...metadata, x_recorder: provenance };
}
