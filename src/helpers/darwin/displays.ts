// Points ↔ physical pixels on macOS (docs/helper-protocol.md §6). AX, CGWindowList and
// CGDisplayBounds speak global points (origin at the primary display's top-left, y down); the
// protocol speaks physical pixels of a virtual desktop, and macOS has no pixel desktop of its
// own, so the helper defines one:
//
//   unit  = the largest backing scale of all active displays
//   display origin (px) = display origin (pt) × unit
//   display size   (px) = display size (pt)   × that display's own scale
//   a point p on display D → D.origin(px) + (p − D.origin(pt)) × D.scale
//
// With one scale everywhere (all Retina, or all 1×) this is simply pixel = point × scale, from
// the primary display's top-left, so a display left of or above the primary keeps negative
// coordinates. With mixed scales, scaling origins by the largest scale keeps the pixel
// rectangles from overlapping (each fits inside its point rectangle × unit, and the point
// rectangles do not overlap), at the price of gaps beside the lower-scale displays; inside each
// display, pixels are exactly its video's pixels offset by its origin, which is what the
// recorder stores per recording. A rectangle is converted in the frame of the display holding
// its centre (extrapolated past that display's edges); a point outside every display uses the
// nearest one.
import type { AxBounds } from '../../axtree/model';
import type { HelperDisplay } from '../../axtree/platform/helper-protocol';
import type { AxPoint, CgDisplay, PointRect } from './ax-backend';

/** One display with both its point and pixel rectangles. */
export type LaidOutDisplay = CgDisplay & { pixels: AxBounds };

/** The displays of one layout and the unit of their origins. */
export type DisplayLayout = {
  /** Largest backing scale (1 without displays). */
  unit: number;
  displays: LaidOutDisplay[];
};

/** Lays out the displays in pixels by the rule above. */
export function layoutDisplays(displays: readonly CgDisplay[]): DisplayLayout {
  const scales = displays.map((d) => (Number.isFinite(d.scale) && d.scale > 0 ? d.scale : 1));
  const unit = scales.length === 0 ? 1 : Math.max(...scales);
  return {
    unit,
    displays: displays.map((d, i) => {
      const scale = scales[i] ?? 1;
      return {
        ...d,
        scale,
        pixels: {
          x: Math.round(d.bounds.x * unit),
          y: Math.round(d.bounds.y * unit),
          width: Math.round(d.bounds.width * scale),
          height: Math.round(d.bounds.height * scale),
        },
      };
    }),
  };
}

function contains(r: AxBounds | PointRect, x: number, y: number): boolean {
  return x >= r.x && y >= r.y && x < r.x + r.width && y < r.y + r.height;
}

function distance(r: AxBounds | PointRect, x: number, y: number): number {
  const dx = Math.max(r.x - x, 0, x - (r.x + r.width));
  const dy = Math.max(r.y - y, 0, y - (r.y + r.height));
  return Math.hypot(dx, dy);
}

function pick(
  layout: DisplayLayout,
  rectOf: (d: LaidOutDisplay) => AxBounds | PointRect,
  x: number,
  y: number,
): LaidOutDisplay | null {
  let best: LaidOutDisplay | null = null;
  let bestDistance = Infinity;
  for (const d of layout.displays) {
    const rect = rectOf(d);
    if (contains(rect, x, y)) {
      return d;
    }
    const dist = distance(rect, x, y);
    if (dist < bestDistance) {
      best = d;
      bestDistance = dist;
    }
  }
  return best;
}

/** The display whose point rectangle holds the point (else the nearest); null without displays. */
export function displayAtPoint(layout: DisplayLayout, p: AxPoint): LaidOutDisplay | null {
  return pick(layout, (d) => d.bounds, p.x, p.y);
}

function toPixel(d: LaidOutDisplay | null, unit: number, p: AxPoint): AxPoint {
  if (d === null) {
    return { x: Math.round(p.x * unit), y: Math.round(p.y * unit) };
  }
  return {
    x: Math.round(d.pixels.x + (p.x - d.bounds.x) * d.scale),
    y: Math.round(d.pixels.y + (p.y - d.bounds.y) * d.scale),
  };
}

/** A global point → virtual-desktop pixels. */
export function pointToPixel(layout: DisplayLayout, p: AxPoint): AxPoint {
  return toPixel(displayAtPoint(layout, p), layout.unit, p);
}

/** A rectangle in points → pixels, in the frame of the display holding its centre. */
export function rectToPixels(layout: DisplayLayout, r: PointRect): AxBounds {
  const d = displayAtPoint(layout, { x: r.x + r.width / 2, y: r.y + r.height / 2 });
  const scale = d === null ? layout.unit : d.scale;
  const origin = toPixel(d, layout.unit, { x: r.x, y: r.y });
  return {
    x: origin.x,
    y: origin.y,
    width: Math.round(r.width * scale),
    height: Math.round(r.height * scale),
  };
}

/** Virtual-desktop pixels → a global point (the inverse, for elementAt queries). */
export function pixelToPoint(layout: DisplayLayout, p: AxPoint): AxPoint {
  const d = pick(layout, (x) => x.pixels, p.x, p.y);
  if (d === null) {
    return { x: p.x / layout.unit, y: p.y / layout.unit };
  }
  return {
    x: d.bounds.x + (p.x - d.pixels.x) / d.scale,
    y: d.bounds.y + (p.y - d.pixels.y) / d.scale,
  };
}

/**
 * The `displays` result (docs/helper-protocol.md §3), in CGGetActiveDisplayList's order (the main
 * display first), each with `listIndex`, its place there: ffmpeg's avfoundation numbers its
 * `Capture screen N` devices in that order.
 */
export function toHelperDisplays(layout: DisplayLayout): HelperDisplay[] {
  return layout.displays.map((d, listIndex) => ({
    id: String(d.id),
    bounds: d.pixels,
    scale: d.scale,
    primary: d.primary,
    listIndex,
  }));
}
