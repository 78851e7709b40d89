// The visual cue of OpenCUA's CoT synthesis (docs/cot.md §2): a red ring of diameter 40 and width
// 3 and a filled red dot of radius 2 at every coordinate of the step's code, and a 300-px patch
// around the first coordinate, cut after its ring is drawn. Pixels equal Pillow's (9.4) ImageDraw
// ellipse: the ellipse is stepped on a doubled integer grid, a quarter at a time, choosing at each
// step the next grid point whose substitution into the ellipse equation deviates least, and each
// row of the ring is the span between the outer quarter and the inner one (the inner one shrunk by
// the width); a fill is a ring as wide as the ellipse. tests/pipeline/cot/cue.test.ts compares
// every pixel with Pillow's on the example recording's keyframes.

/** Packed RGB24 pixels, row by row. */
export type RgbImage = { width: number; height: number; rgb: Uint8Array };

/** Diameter of the ring (upstream `circle_size`). */
export const RING_DIAMETER_PX = 40;
/** Width of the ring's outline. */
export const RING_WIDTH_PX = 3;
/** Radius of the dot at the centre (upstream `point_radius`). */
export const DOT_RADIUS_PX = 2;
/** Side of the patch cut around the first coordinate (upstream `patch_size`). */
export const PATCH_SIZE_PX = 300;

const RED: readonly [number, number, number] = [255, 0, 0];

// The code lines whose coordinates get a cue (upstream utils.draw_bounding_box_and_crop_patch).
const POINTER_PREFIXES = [
  'pyautogui.click',
  'pyautogui.moveTo',
  'pyautogui.dragTo',
  'pyautogui.doubleClick',
  'pyautogui.rightClick',
  'pyautogui.middleClick',
  'pyautogui.tripleClick',
  'computer.tripleClick',
];
// upstream's pattern, character for character (no DOTALL: one line)
const XY_PATTERN = /x\s*=\s*([0-9.]+).*?y\s*=\s*([0-9.]+)/;
// what Python's float() takes of the digits-and-dots the pattern allows
const PY_FLOAT = /^(?:\d+\.?\d*|\.\d+)$/;

/** The normalised coordinates the cue marks, in code order: every line that starts with a pointer
 * call and has `x=… y=…` with both in [0, 1] (upstream's rule, line by line, stripped). */
export function cueCoordinates(code: string): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (!line || !POINTER_PREFIXES.some((p) => line.startsWith(p))) {
      continue;
    }
    const m = XY_PATTERN.exec(line);
    if (!m || !PY_FLOAT.test(m[1]!) || !PY_FLOAT.test(m[2]!)) {
      // upstream's float() raises on '1.2.3' and the step fails; here the line gets no cue
      continue;
    }
    const x = Number(m[1]);
    const y = Number(m[2]);
    if (x >= 0 && x <= 1 && y >= 0 && y <= 1) {
      out.push({ x, y });
    }
  }
  return out;
}

/** The step's image with its cue, and the patch (null when no coordinate was marked: upstream then
 * uses the keyboard prompts). `image` is not changed. */
export function drawCue(
  image: RgbImage,
  code: string,
): { image: RgbImage; patch: RgbImage | null } {
  const drawn: RgbImage = { ...image, rgb: Uint8Array.from(image.rgb) };
  let patch: RgbImage | null = null;
  for (const { x, y } of cueCoordinates(code)) {
    // Python's int() of a non-negative float: truncation
    const cx = Math.trunc(x * image.width);
    const cy = Math.trunc(y * image.height);
    const half = Math.trunc(RING_DIAMETER_PX / 2);
    drawEllipse(drawn, [cx - half, cy - half, cx + half, cy + half], RING_WIDTH_PX, false);
    const r = DOT_RADIUS_PX;
    drawEllipse(drawn, [cx - r, cy - r, cx + r, cy + r], 0, true);
    // cut after the first coordinate's ring: later rings are not in the patch
    patch ??= cropPatch(drawn, cx, cy);
  }
  return { image: drawn, patch };
}

// The patch around (cx, cy): a 300×300 box clipped to the image (upstream crop_image_patch; its
// resize by target/patch = 1 keeps the size, so the pixels are the crop's).
function cropPatch(image: RgbImage, cx: number, cy: number): RgbImage {
  const half = Math.trunc(PATCH_SIZE_PX / 2);
  const left = Math.max(0, cx - half);
  const top = Math.max(0, cy - half);
  const right = Math.min(image.width, cx + half);
  const bottom = Math.min(image.height, cy + half);
  const width = Math.max(0, right - left);
  const height = Math.max(0, bottom - top);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    const from = ((top + y) * image.width + left) * 3;
    rgb.set(image.rgb.subarray(from, from + width * 3), y * width * 3);
  }
  return { width, height, rgb };
}

/** Draws an ellipse inside the box [x0, y0, x1, y1] (both corners included) in red: a ring
 * `width` px wide, or filled; pixels outside the image are skipped. */
export function drawEllipse(
  image: RgbImage,
  box: readonly [number, number, number, number],
  width: number,
  isFilled: boolean,
): void {
  const [x0, y0, x1, y1] = box;
  const a = x1 - x0;
  const b = y1 - y0;
  if (a < 0 || b < 0) {
    return;
  }
  for (const [sx0, sy, sx1] of ellipseSpans(a, b, isFilled ? a + b : width)) {
    // grid → pixels; every sum is ≥ 0, so the C division is a floor
    hline(
      image,
      x0 + Math.floor((sx0 + a) / 2),
      y0 + Math.floor((sy + b) / 2),
      x0 + Math.floor((sx1 + a) / 2),
    );
  }
}

function hline(image: RgbImage, xa: number, y: number, xb: number): void {
  if (y < 0 || y >= image.height) {
    return;
  }
  let from = Math.min(xa, xb);
  let to = Math.max(xa, xb);
  if (from >= image.width || to < 0) {
    return;
  }
  from = Math.max(0, from);
  to = Math.min(image.width - 1, to);
  for (let x = from; x <= to; x += 1) {
    image.rgb.set(RED, (y * image.width + x) * 3);
  }
}

// The points of the top-right quarter of the ellipse with semi-axes a/2, b/2 on the doubled grid
// (x, y ≥ 0), from (a, b mod 2) to (a mod 2, b): each next point is the one of up, up-left and
// left (steps of 2) whose deviation |a²y² + b²x² − a²b²| is smallest, ties to the earlier.
function* quarter(a: number, b: number): Generator<[number, number]> {
  if (a < 0 || b < 0) {
    return;
  }
  const a2 = a * a;
  const b2 = b * b;
  const deviation = (x: number, y: number) => Math.abs(a2 * y * y + b2 * x * x - a2 * b2);
  let x = a;
  let y = b % 2;
  for (;;) {
    yield [x, y];
    if (x === a % 2 && y === b) {
      return;
    }
    let nx = x;
    let ny = y + 2;
    let best = deviation(nx, ny);
    if (x > 1) {
      const diagonal = deviation(x - 2, y + 2);
      if (best > diagonal) {
        nx = x - 2;
        ny = y + 2;
        best = diagonal;
      }
      if (best > deviation(x - 2, y)) {
        nx = x - 2;
        ny = y;
      }
    }
    x = nx;
    y = ny;
  }
}

// The horizontal spans [x0, y, x1] (doubled grid, centre 0) of a ring `w` grid rows wide: row by
// row of the outer quarter, from its outermost point to the inner quarter's innermost point on
// that row, mirrored into the four quarters.
function* ellipseSpans(a: number, b: number, w: number): Generator<[number, number, number]> {
  const outer = quarter(a, b);
  const first = outer.next();
  if (w < 1 || first.done) {
    return;
  }
  const leftmost = a % 2;
  const inner = quarter(a - 2 * (w - 1), b - 2 * (w - 1));
  let [pr, py] = first.value;
  let pl = leftmost;
  let isFinished = false;
  while (!isFinished) {
    const y = py;
    let l = pl;
    const r = pr;
    let next = outer.next();
    while (!next.done && next.value[1] <= y) {
      next = outer.next();
    }
    if (next.done) {
      isFinished = true;
    } else {
      [pr, py] = next.value;
    }
    let nextInner = inner.next();
    while (!nextInner.done && nextInner.value[1] <= y) {
      l = nextInner.value[0];
      nextInner = inner.next();
    }
    pl = nextInner.done ? leftmost : nextInner.value[0];
    const hasRight = l > 0 || l < r;
    const from = l === 0 ? 2 : l;
    if (hasRight && y > 0) {
      yield [from, y, r];
    }
    if (y > 0) {
      yield [-r, y, -l];
    }
    if (hasRight) {
      yield [from, -y, r];
    }
    yield [-r, -y, -l];
  }
}
