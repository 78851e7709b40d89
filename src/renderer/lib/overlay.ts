// Keyframe overlay geometry: what to draw on a step's keyframe (click point, drag path, scroll
// direction, typed text or keys), first in normalised screen units, then in image pixels.
// StepDto coordinates are screen pixels; the keyframe has the video's resolution, so everything
// is scaled by image size / screen size.
import type { StepDto } from '../../shared/contract';
import type { ActionCall, ScreenInfo } from '../../shared/domain';
import { callArg, callKeys, callPoint, pyNumberOf, pyStringOf } from './py-value';

/** Pointer-press flavours drawn differently. */
export type ClickVariant = 'click' | 'doubleClick' | 'tripleClick' | 'rightClick' | 'middleClick';

/** Overlay in normalised screen units ([0, 1] on both axes). */
export type OverlayModel = {
  click: { x: number; y: number; variant: ClickVariant } | null;
  /** Pointer position of a move/scroll without a click. */
  pointer: { x: number; y: number } | null;
  drag: { points: { x: number; y: number }[] } | null;
  /** Wheel notches: dy > 0 = up, dx > 0 = right. */
  scroll: { dx: number; dy: number } | null;
  text: string | null;
  keys: string[] | null;
};

/** A size in pixels. */
export type SizePx = { width: number; height: number };

const CLICK_VARIANTS: ReadonlySet<string> = new Set([
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
]);

function isClickVariant(name: string): name is ClickVariant {
  return CLICK_VARIANTS.has(name);
}

// Overlay of a list of calls alone (used for the action editor's preview).
export function callsOverlay(calls: readonly ActionCall[]): OverlayModel {
  const model: OverlayModel = {
    click: null,
    pointer: null,
    drag: null,
    scroll: null,
    text: null,
    keys: null,
  };
  let lastMove: { x: number; y: number } | null = null;
  for (const call of calls) {
    const point = callPoint(call);
    if (isClickVariant(call.name) && point) {
      model.click = { ...point, variant: call.name };
    } else if (call.name === 'moveTo' && point) {
      lastMove = point;
      model.pointer = point;
    } else if (call.name === 'dragTo' && point) {
      model.drag = { points: [lastMove ?? point, point] };
      model.pointer = null;
    } else if (call.name === 'scroll' || call.name === 'hscroll') {
      const clicks = pyNumberOf(callArg(call, 'clicks', 0)) ?? 0;
      const prev = model.scroll ?? { dx: 0, dy: 0 };
      model.scroll =
        call.name === 'scroll'
          ? { ...prev, dy: prev.dy + clicks }
          : { ...prev, dx: prev.dx + clicks };
    } else if (call.name === 'write') {
      const message = pyStringOf(callArg(call, 'message', 0));
      if (message !== null) {
        model.text = (model.text ?? '') + message;
      }
    } else if (call.name === 'press' || call.name === 'hotkey') {
      const keys = callKeys(call);
      if (keys) {
        model.keys = [...(model.keys ?? []), ...(call.name === 'hotkey' ? [keys.join('+')] : keys)];
      }
    }
  }
  return model;
}

// Overlay of a step: the step's recorded geometry (screen px) wins over what its calls say.
export function stepOverlay(
  step: Pick<StepDto, 'calls' | 'coordinate' | 'overlay'>,
  screen: Pick<ScreenInfo, 'width' | 'height'>,
): OverlayModel {
  const model = callsOverlay(step.calls);
  const w = screen.width > 0 ? screen.width : 1;
  const h = screen.height > 0 ? screen.height : 1;
  if (step.coordinate) {
    const at = { x: step.coordinate.x / w, y: step.coordinate.y / h };
    if (model.click) {
      model.click = { ...model.click, ...at };
    } else if (!model.drag) {
      model.pointer = at;
    }
  }
  const path = step.overlay.dragPath;
  if (path && path.length >= 2) {
    model.drag = { points: path.map(([x, y]) => ({ x: x / w, y: y / h })) };
    model.pointer = null;
  }
  if (step.overlay.scroll) {
    model.scroll = { ...step.overlay.scroll };
  }
  if (step.overlay.text != null) {
    model.text = step.overlay.text;
  }
  if (step.overlay.keys && step.overlay.keys.length > 0) {
    model.keys = [...step.overlay.keys];
  }
  return model;
}

/** A point in image pixels. */
export type PointPx = { x: number; y: number };

// Normalised point → image pixel point.
export function toImagePx(point: { x: number; y: number }, image: SizePx): PointPx {
  return { x: point.x * image.width, y: point.y * image.height };
}

// Image-space scale of screen pixels (image size / screen size) per axis.
export function screenToImageScale(
  screen: Pick<ScreenInfo, 'width' | 'height'>,
  image: SizePx,
): { sx: number; sy: number } {
  return {
    sx: screen.width > 0 ? image.width / screen.width : 1,
    sy: screen.height > 0 ? image.height / screen.height : 1,
  };
}

// SVG path data (`M x y L …`) of a polyline of normalised points, in image pixels.
export function polylinePath(points: readonly { x: number; y: number }[], image: SizePx): string {
  return points
    .map((p, i) => {
      const q = toImagePx(p, image);
      return `${i === 0 ? 'M' : 'L'}${round1(q.x)} ${round1(q.y)}`;
    })
    .join(' ');
}

/** A drawn arrow in image pixels. */
export type ArrowPx = { from: PointPx; to: PointPx; label: string };

// Arrow showing a scroll's direction, anchored at `at` (normalised) or the image centre.
export function scrollArrow(
  scroll: { dx: number; dy: number },
  at: { x: number; y: number } | null,
  image: SizePx,
): ArrowPx | null {
  if (scroll.dx === 0 && scroll.dy === 0) {
    return null;
  }
  const origin = toImagePx(at ?? { x: 0.5, y: 0.5 }, image);
  // screen y grows downwards: a positive (upward) scroll points up
  const vx = scroll.dx;
  const vy = -scroll.dy;
  const norm = Math.hypot(vx, vy);
  const notches = Math.max(Math.abs(scroll.dx), Math.abs(scroll.dy));
  const lengthPx = Math.min(0.25, 0.06 + 0.02 * notches) * Math.min(image.width, image.height);
  const to = {
    x: clamp(origin.x + (vx / norm) * lengthPx, 0, image.width),
    y: clamp(origin.y + (vy / norm) * lengthPx, 0, image.height),
  };
  const parts: string[] = [];
  if (scroll.dy !== 0) {
    parts.push(`${scroll.dy > 0 ? '↑' : '↓'}${Math.abs(scroll.dy)}`);
  }
  if (scroll.dx !== 0) {
    parts.push(`${scroll.dx > 0 ? '→' : '←'}${Math.abs(scroll.dx)}`);
  }
  return { from: origin, to, label: parts.join(' ') };
}

// Normalised point of a click at (clientX, clientY) inside an element's bounding box, clamped.
export function clientToNormalised(
  clientX: number,
  clientY: number,
  rect: { left: number; top: number; width: number; height: number },
): { x: number; y: number } {
  const x = rect.width > 0 ? (clientX - rect.left) / rect.width : 0;
  const y = rect.height > 0 ? (clientY - rect.top) / rect.height : 0;
  return { x: round4(clamp(x, 0, 1)), y: round4(clamp(y, 0, 1)) };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}

// Rounds to 4 decimals (the precision of normalised coordinates in code).
export function round4(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}
