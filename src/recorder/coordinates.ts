// The coordinate contract (docs/architecture.md §5 "Coordinates"): what the recorder stores is in
// physical pixels of the recorded display, its top-left corner at 0,0. Sources report the
// virtual desktop instead (input hooks in pixels, or in points on macOS; accessibility helpers
// in pixels, docs/helper-protocol.md §3), so input events and accessibility records pass through
// here before they reach the sink. On Linux the recorded display is the whole X screen at 0,0 in
// pixels, and every mapping is the identity (the very same objects are handed on).
import type { AxBounds, AxElementRecord, AxNode, AxSnapshot } from '../axtree/model';
import type { DisplayGeometry } from '../shared/domain/display';
import type { DisplayInfo } from './display-info';
import type { InputEvent } from './input/normalize-input-event';

/** The unit an input source reports positions in. */
export type CoordinateUnit = 'pixels' | 'points';

/** How a session maps virtual-desktop positions into recording pixels. */
export type CoordinateSpace = {
  /** The recorded display (origin in physical px of the virtual desktop). */
  display: DisplayGeometry;
  /** The input hook's unit: points on macOS (CGEvent locations), pixels elsewhere. */
  inputUnit: CoordinateUnit;
};

/** The recorded display of a {@link DisplayInfo}: its origin (0,0 when absent), size and scale. */
export function recordedDisplayOf(info: DisplayInfo): DisplayGeometry {
  return {
    x: info.origin?.x ?? 0,
    y: info.origin?.y ?? 0,
    width: info.width,
    height: info.height,
    scale: info.scale,
  };
}

/** The space of a session recording `info` with an input source in `inputUnit`. */
export function coordinateSpace(
  info: DisplayInfo,
  inputUnit: CoordinateUnit = 'pixels',
): CoordinateSpace {
  return { display: recordedDisplayOf(info), inputUnit };
}

/** True when nothing moves: origin 0,0 and pixel input (Linux). */
export function isIdentity(space: CoordinateSpace): boolean {
  return space.display.x === 0 && space.display.y === 0 && space.inputUnit === 'pixels';
}

/**
 * An input position in physical px of the virtual desktop: points are multiplied by the
 * recorded display's scale. The helper reports a display's pixel bounds as its point bounds
 * times its backing scale (docs/helper-protocol.md §6), so on that display the product lands on
 * the same pixel grid as the helper's bounds.
 */
export function inputToVirtualPixels(
  space: CoordinateSpace,
  x: number,
  y: number,
): { x: number; y: number } {
  return space.inputUnit === 'points'
    ? { x: x * space.display.scale, y: y * space.display.scale }
    : { x, y };
}

/** A virtual-desktop pixel as a pixel of the recorded display (subtracts the origin). */
export function toRecordingPixels(
  display: DisplayGeometry,
  x: number,
  y: number,
): { x: number; y: number } {
  return { x: x - display.x, y: y - display.y };
}

/**
 * Bounds in virtual-desktop px as bounds on the recorded display. Not clipped: an element partly
 * off the display keeps its real extent (negative x, or right edge past the width), so what is
 * stored is what the element is; {@link clipToDisplay} gives the visible part.
 */
export function toRecordingBounds(display: DisplayGeometry, bounds: AxBounds): AxBounds {
  return { ...bounds, x: bounds.x - display.x, y: bounds.y - display.y };
}

/** The part of recording-pixel `bounds` on the recorded display, or null when none is. */
export function clipToDisplay(display: DisplayGeometry, bounds: AxBounds): AxBounds | null {
  const left = Math.max(0, bounds.x);
  const top = Math.max(0, bounds.y);
  const right = Math.min(display.width, bounds.x + bounds.width);
  const bottom = Math.min(display.height, bounds.y + bounds.height);
  return right > left && bottom > top
    ? { x: left, y: top, width: right - left, height: bottom - top }
    : null;
}

/** True when the recording pixel lies on the recorded display. */
export function isOnDisplay(display: DisplayGeometry, x: number, y: number): boolean {
  return x >= 0 && y >= 0 && x < display.width && y < display.height;
}

/**
 * Input events as stored: positions in recording pixels. A pointer on another monitor keeps its
 * position relative to the recorded display (outside 0..width); wheel deltas are not positions.
 */
export function mapInputEvents(space: CoordinateSpace, batch: InputEvent[]): InputEvent[] {
  if (isIdentity(space)) {
    return batch;
  }
  return batch.map((e) => {
    if (e.x === null || e.y === null) {
      return e;
    }
    const v = inputToVirtualPixels(space, e.x, e.y);
    const p = toRecordingPixels(space.display, v.x, v.y);
    return { ...e, x: p.x, y: p.y };
  });
}

function mapNode(display: DisplayGeometry, node: AxNode): AxNode {
  return {
    ...node,
    bounds: node.bounds ? toRecordingBounds(display, node.bounds) : null,
    children: node.children.map((c) => mapNode(display, c)),
  };
}

/** An element-at-point record as stored: the point and every bound in recording pixels. */
export function mapElementRecord(space: CoordinateSpace, record: AxElementRecord): AxElementRecord {
  if (isIdentity(space)) {
    return record;
  }
  const p = toRecordingPixels(space.display, record.x, record.y);
  return {
    ...record,
    x: p.x,
    y: p.y,
    path: record.path.map((n) => mapNode(space.display, n)),
  };
}

/** A window snapshot as stored: every bound in recording pixels. */
export function mapSnapshot(space: CoordinateSpace, snapshot: AxSnapshot): AxSnapshot {
  if (isIdentity(space) || !snapshot.root) {
    return snapshot;
  }
  return { ...snapshot, root: mapNode(space.display, snapshot.root) };
}
