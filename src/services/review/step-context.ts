// What the review page shows around a step besides its calls: the element under the pointer,
// the active window, and overlay data (pure helpers over already-loaded records).
import type { StepDto } from '../../shared/contract';
import type { ActionCall, PyValue, RawEvent, Step } from '../../shared/domain';
import type { WindowRecord } from '../../store';
import { typedTextOf } from '../edits/apply-edits';

/** An element record is matched to a step when it lies this close to the step's start (ms). */
export const ELEMENT_MATCH_WINDOW_MS = 1000;

/** Calls whose step has an element under the pointer. */
const POINTER_CALLS: ReadonlySet<string> = new Set([
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
  'moveTo',
  'dragTo',
  'scroll',
  'hscroll',
]);

/** True when the step acts at a pointer position (so an element record can belong to it). */
export function isPointerStep(step: Pick<Step, 'calls'>): boolean {
  return step.calls.some((c) => POINTER_CALLS.has(c.name));
}

/** Index of the record nearest to `tMs` in time-sorted `times`, or -1 when none is within
 * `windowMs`. */
export function nearestIndex(times: readonly number[], tMs: number, windowMs: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] ?? 0) < tMs) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  let best = -1;
  let bestDistance = Infinity;
  for (const i of [lo - 1, lo]) {
    const t = times[i];
    if (t !== undefined && Math.abs(t - tMs) < bestDistance) {
      best = i;
      bestDistance = Math.abs(t - tMs);
    }
  }
  return bestDistance <= windowMs ? best : -1;
}

/** Index of the last record at or before `tMs` in time-sorted `times`, or -1. */
export function lastAtOrBefore(times: readonly number[], tMs: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] ?? 0) <= tMs) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo - 1;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * The role/name chain of an element record, outermost ancestor first and the element last:
 * our recordings store `{ path: AxNode[] }` (element first, then its ancestors); AgentNet imports
 * store the element itself as a Windows UIA node (`ControlType`/`Name`) or a macOS AX node
 * (`AXRole`/`AXTitle`).
 */
export function elementChain(tree: unknown): { role: string; name: string }[] | null {
  if (!tree || typeof tree !== 'object' || Array.isArray(tree)) {
    return null;
  }
  const t = tree as Record<string, unknown>;
  if (Array.isArray(t.path)) {
    const chain = (t.path as unknown[])
      .filter((n): n is Record<string, unknown> => !!n && typeof n === 'object')
      .map((n) => ({ role: str(n.role), name: str(n.name) }))
      .reverse();
    return chain.length ? chain : null;
  }
  if ('ControlType' in t || 'Name' in t) {
    return [{ role: str(t.ControlType), name: str(t.Name) }];
  }
  if ('AXRole' in t) {
    return [{ role: str(t.AXRole), name: str(t.AXTitle) || str(t.AXDescription) }];
  }
  return null;
}

/** The active window's title (else its application name) at `tMs`, from a time-sorted timeline. */
export function windowTitleAt(windows: readonly WindowRecord[], tMs: number): string | null {
  const w =
    windows[
      lastAtOrBefore(
        windows.map((x) => x.tMs),
        tMs,
      )
    ];
  return w ? (w.title ?? w.app ?? null) : null;
}

function clicks(value: PyValue | undefined): number {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return 'int' in value ? value.int : 'float' in value ? value.float : 0;
  }
  return 0;
}

function keysOf(call: ActionCall): string[] {
  const keys = Array.isArray(call.args) ? undefined : call.args.keys;
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
}

/** Overlay data of a step: drag path from its raw pointer events, scroll notches, text, keys. */
export function stepOverlay(step: Step, dragEvents: readonly RawEvent[]): StepDto['overlay'] {
  const overlay: StepDto['overlay'] = {};
  if (step.calls.some((c) => c.name === 'dragTo')) {
    const path = dragEvents
      .filter((e) => e.x !== null && e.y !== null && ['move', 'down', 'up'].includes(e.kind))
      .map((e): [number, number] => [e.x ?? 0, e.y ?? 0]);
    if (path.length) {
      overlay.dragPath = path;
    }
  }
  let dx = 0;
  let dy = 0;
  let hasScroll = false;
  const keys: string[] = [];
  for (const call of step.calls) {
    const args = Array.isArray(call.args) ? {} : call.args;
    if (call.name === 'scroll' || call.name === 'hscroll') {
      hasScroll = true;
      if (call.name === 'scroll') {
        dy += clicks(args.clicks);
      } else {
        dx += clicks(args.clicks);
      }
    } else if (call.name === 'press') {
      keys.push(...keysOf(call));
    } else if (call.name === 'hotkey') {
      keys.push(keysOf(call).join('+'));
    }
  }
  if (hasScroll) {
    overlay.scroll = { dx, dy };
  }
  const text = typedTextOf(step.calls);
  if (text !== null) {
    overlay.text = text;
  }
  if (keys.length) {
    overlay.keys = keys;
  }
  return overlay;
}
