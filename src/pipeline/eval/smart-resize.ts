// Qwen2.5-style `smart_resize` and the relative ↔ absolute coordinate conversion
// (docs/pyautogui-code.md §7). Pure: no I/O.
import { AppError } from '../../shared/errors';

/** Default resize factor (patch size × merge size). */
export const SMART_RESIZE_FACTOR = 28;
/** Default lower bound on the resized pixel count. */
export const SMART_RESIZE_MIN_PIXELS = 3136;
/** Default upper bound on the resized pixel count. */
export const SMART_RESIZE_MAX_PIXELS = 12845056;

/** An image size in pixels. */
export type PixelSize = { height: number; width: number };

/** An absolute point in pixels of the smart-resized image. */
export type PixelPoint = { x: number; y: number };

// Python's `round(x)` for a float: nearest integer, ties to even.
export function pyRound(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) {
    return floor + 1;
  }
  if (diff < 0.5) {
    return floor;
  }
  return floor % 2 === 0 ? floor : floor + 1;
}

// Resizes (height, width) to multiples of `factor` within [minPixels, maxPixels], like the reference.
export function smartResize(
  height: number,
  width: number,
  factor = SMART_RESIZE_FACTOR,
  minPixels = SMART_RESIZE_MIN_PIXELS,
  maxPixels = SMART_RESIZE_MAX_PIXELS,
): PixelSize {
  if (!Number.isFinite(height) || !Number.isFinite(width) || height < factor || width < factor) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `height:${String(height)} or width:${String(width)} must be larger than factor:${String(factor)}`,
      { height, width, factor },
    );
  }
  let hBar = Math.max(1, pyRound(height / factor)) * factor;
  let wBar = Math.max(1, pyRound(width / factor)) * factor;
  if (hBar * wBar > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    hBar = Math.max(1, Math.floor(height / beta / factor)) * factor;
    wBar = Math.max(1, Math.floor(width / beta / factor)) * factor;
  } else if (hBar * wBar < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    hBar = Math.ceil((height * beta) / factor) * factor;
    wBar = Math.ceil((width * beta) / factor) * factor;
  }
  return { height: hBar, width: wBar };
}

// Relative [0, 1] point → absolute pixels on the resized image: `int(x_rel · w̄)` (truncation).
export function relativeToAbsolute(xRel: number, yRel: number, size: PixelSize): PixelPoint {
  return { x: Math.trunc(xRel * size.width), y: Math.trunc(yRel * size.height) };
}

// Python `format(x, ".4f")`: correctly rounded, exact ties to even (JS toFixed rounds them up).
export function formatFixed4(x: number): string {
  const negative = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  // A double is an exact tie at 4 decimals only when abs·32 is an odd integer (k/20000 = odd/32).
  const scaled32 = abs * 32;
  if (Number.isInteger(scaled32) && scaled32 % 2 === 1) {
    const lower = Math.floor(abs * 10000); // exact: abs·10000 = odd·312.5
    const n = lower % 2 === 0 ? lower : lower + 1;
    const intPart = Math.floor(n / 10000);
    const frac = String(n % 10000).padStart(4, '0');
    return `${negative ? '-' : ''}${String(intPart)}.${frac}`;
  }
  return `${negative ? '-' : ''}${abs.toFixed(4)}`;
}

// Absolute pixel → relative string: `format(v / side, ".4f")` minus trailing zeros and dot.
export function absoluteToRelative(v: number, side: number): string {
  if (!Number.isFinite(v) || !Number.isFinite(side) || side <= 0) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `Cannot convert ${String(v)} relative to side ${String(side)}`,
      { v, side },
    );
  }
  return formatFixed4(v / side)
    .replace(/0+$/, '')
    .replace(/\.$/, '');
}
