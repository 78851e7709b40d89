// AgentNet reduced rows (complete + vis, line-aligned) → our steps, keeping the annotator's
// labels and the rows themselves for faithful re-export (docs/agentnet-raw-format.md §10–12, §14).
import { secondsToMs } from '../../shared/clock';
import type { ActionCall, PreMove, Step } from '../../shared/domain';
import { stepKindOfCalls } from '../../shared/domain';
import { descriptionToCalls, stage1Description } from '../code';

/** The aligned reduced rows as read from the folder. */
export type ReducedRowsInput = {
  complete: Record<string, unknown>[];
  vis: Record<string, unknown>[];
};

/** Prefix of step ids that come from an AgentNet reduced row (`agentnet:<row id>`). */
export const AGENTNET_STEP_ID_PREFIX = 'agentnet:';

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function point(v: unknown): { x: number; y: number } | null {
  if (v && typeof v === 'object') {
    const { x, y } = v as { x?: unknown; y?: unknown };
    const px = num(x);
    const py = num(y);
    if (px !== null && py !== null) {
      return { x: px, y: py };
    }
  }
  return null;
}

type TraceTick = { x: number; y: number; dx: number; dy: number };

function scrollTrace(v: unknown): TraceTick[] | null {
  if (!Array.isArray(v)) {
    return null;
  }
  const ticks: TraceTick[] = [];
  for (const t of v) {
    const p = t as { x?: unknown; y?: unknown; dx?: unknown; dy?: unknown };
    const x = num(p.x);
    const y = num(p.y);
    if (x === null || y === null) {
      return null;
    }
    ticks.push({ x, y, dx: num(p.dx) ?? 0, dy: num(p.dy) ?? 0 });
  }
  return ticks;
}

function preMoveOf(v: unknown): PreMove | null {
  if (!v || typeof v !== 'object') {
    return null;
  }
  const m = v as {
    start_time?: unknown;
    end_time?: unknown;
    event_start_idx?: unknown;
    trace?: unknown;
  };
  const start = num(m.start_time);
  const end = num(m.end_time);
  if (start === null || end === null) {
    return null;
  }
  return {
    startMs: secondsToMs(start),
    endMs: secondsToMs(end),
    eventStartIdx: num(m.event_start_idx) ?? -1,
    count: Array.isArray(m.trace) ? m.trace.length : 0,
  };
}

function endSeconds(complete: Record<string, unknown>, start: number): number {
  const end = num(complete.end_time);
  if (end !== null) {
    return end;
  }
  // scroll rows may carry end_time null upstream: last tick + 0.2 s, as the reducer pads scrolls
  const times = Array.isArray(complete.time_trace) ? complete.time_trace.map(num) : [];
  const last = times.length ? times[times.length - 1] : null;
  return last !== null && last !== undefined ? last + 0.2 : start;
}

/** Converts aligned reduced rows into steps (ids `agentnet:<row id>`, order kept). */
export function stepsFromAgentNetRows(
  rows: ReducedRowsInput,
  screen: { width: number; height: number },
): Step[] {
  return rows.complete.map((complete, index): Step => {
    const vis = rows.vis[index] ?? {};
    const rowId = num(complete.id) ?? index;
    const description = typeof complete.description === 'string' ? complete.description : '';
    const action = typeof complete.action === 'string' ? complete.action : '';
    const coordinate = point(complete.coordinate);
    const diagnostics: string[] = [];
    let calls: ActionCall[] = [];
    try {
      const text = stage1Description({ action, description, coordinate });
      const trace = action.toLowerCase().includes('scroll') ? scrollTrace(complete.trace) : null;
      calls = descriptionToCalls(text, screen, trace);
    } catch (e) {
      diagnostics.push(`DESCRIPTION_UNPARSEABLE: ${(e as Error).message}`);
    }
    const start = num(complete.start_time) ?? 0;
    const label = typeof vis.action === 'string' ? vis.action : action;
    const target =
      vis.target && typeof vis.target === 'object' ? (vis.target as Record<string, unknown>) : null;
    return {
      id: `${AGENTNET_STEP_ID_PREFIX}${rowId}`,
      index,
      kind: stepKindOfCalls(calls),
      description,
      label,
      calls,
      startMs: secondsToMs(start),
      endMs: secondsToMs(endSeconds(complete, start)),
      eventStartIdx: num(complete.event_start_idx),
      coordinate,
      preMove: preMoveOf(complete.pre_move),
      target,
      extra: { agentnet: { id: rowId, complete, vis } },
      diagnostics,
    };
  });
}
