// The replay driver child process: the only module that loads nut-js (docs/replay.md §4). Its
// native part (libnut) can end the whole process on an X error, so it never runs inside the CLI
// or a server; driver-process.ts starts it through the child launcher and speaks the JSON-lines
// protocol of driver-protocol.ts with it. Logs go to stderr only.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Button, Key, keyboard, mouse, Point, screen } from '@nut-tree-fork/nut-js';
import { encodePngRgb } from '../pipeline/media/png';
import { grayThumbnail } from '../pipeline/replay/screen-diff';
import {
  DRIVER_PROTOCOL_VERSION,
  parseDriverRequest,
  type DriverButton,
  type DriverRequest,
} from './driver-protocol';

// no pacing inside the driver: the parent paces steps itself
mouse.config.autoDelayMs = 0;
mouse.config.mouseSpeed = 100_000;
keyboard.config.autoDelayMs = 0;

const BUTTONS: Readonly<Record<DriverButton, Button>> = {
  left: Button.LEFT,
  right: Button.RIGHT,
  middle: Button.MIDDLE,
};

/** The last grabbed screen, packed RGB24 (for `save`). */
let lastGrab: { rgb: Buffer; width: number; height: number } | null = null;

// libnut on X11 types a character as the key of its keysym and adds Shift only to upper-case
// letters: '!' (Shift+1) came out as '1'. There the characters that need Shift on a US keyboard
// (the layout the driver's key names assume, keys.ts) are typed as Shift + their key; on
// Windows and macOS libnut types Unicode and needs no help.
const US_SHIFTED: ReadonlyMap<string, Key> = new Map([
  ['~', Key.Grave],
  ['!', Key.Num1],
  ['@', Key.Num2],
  ['#', Key.Num3],
  ['$', Key.Num4],
  ['%', Key.Num5],
  ['^', Key.Num6],
  ['&', Key.Num7],
  ['*', Key.Num8],
  ['(', Key.Num9],
  [')', Key.Num0],
  ['_', Key.Minus],
  ['+', Key.Equal],
  ['{', Key.LeftBracket],
  ['}', Key.RightBracket],
  ['|', Key.Backslash],
  [':', Key.Semicolon],
  ['"', Key.Quote],
  ['<', Key.Comma],
  ['>', Key.Period],
  ['?', Key.Slash],
]);

// Control characters in text are keys, as pyautogui's write() presses them.
const TEXT_KEYS: ReadonlyMap<string, Key> = new Map([
  ['\n', Key.Return],
  ['\r', Key.Return],
  ['\t', Key.Tab],
  ['\b', Key.Backspace],
]);

/**
 * Presses keys in order or releases them in reverse, one by one: nut-js's pressKey/releaseKey
 * with several keys take all but the last as modifier flags, so releasing ctrl+c left C down
 * and releasing alt+f4 failed ("Invalid key flag specified").
 */
async function toggleKeys(keys: readonly Key[], down: boolean): Promise<void> {
  if (down) {
    for (const key of keys) {
      await keyboard.pressKey(key);
    }
  } else {
    for (const key of [...keys].reverse()) {
      await keyboard.releaseKey(key);
    }
  }
}

async function typeText(text: string): Promise<void> {
  let run = '';
  for (const char of text) {
    const key = TEXT_KEYS.get(char);
    const shifted = process.platform === 'linux' ? US_SHIFTED.get(char) : undefined;
    if (key === undefined && shifted === undefined) {
      run += char;
      continue;
    }
    if (run !== '') {
      await keyboard.type(run);
      run = '';
    }
    const keys = key !== undefined ? [key] : [Key.LeftShift, shifted!];
    await toggleKeys(keys, true);
    await toggleKeys(keys, false);
  }
  if (run !== '') {
    await keyboard.type(run);
  }
}

function keyOf(name: string): Key {
  const key = (Key as unknown as Record<string, Key | undefined>)[name];
  if (key === undefined) {
    throw new Error(`unknown driver key '${name}'`);
  }
  return key;
}

// nut-js grabs BGRA (or RGBA) pixels; the pipeline wants packed RGB.
function toRgb(data: Buffer, width: number, height: number, channels: number, isBgr: boolean) {
  const rgb = Buffer.allocUnsafe(width * height * 3);
  const [r, b] = isBgr ? [2, 0] : [0, 2];
  for (let i = 0, o = 0; o < rgb.length; i += channels, o += 3) {
    rgb[o] = data[i + r]!;
    rgb[o + 1] = data[i + 1]!;
    rgb[o + 2] = data[i + b]!;
  }
  return rgb;
}

async function handle(request: DriverRequest): Promise<unknown> {
  switch (request.op) {
    case 'hello': {
      const pointer = await mouse.getPosition();
      return {
        width: await screen.width(),
        height: await screen.height(),
        pointer: { x: pointer.x, y: pointer.y },
        version: DRIVER_PROTOCOL_VERSION,
      };
    }
    case 'pointer': {
      const p = await mouse.getPosition();
      return { x: p.x, y: p.y };
    }
    case 'grab': {
      const started = performance.now();
      const image = await screen.grab();
      // ColorMode.BGR is 0 in nut-js
      const rgb = toRgb(
        image.data,
        image.width,
        image.height,
        image.channels,
        Number(image.colorMode) === 0,
      );
      lastGrab = { rgb, width: image.width, height: image.height };
      const t = grayThumbnail(rgb, image.width, image.height, request.thumbnailWidth);
      const data = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
      return {
        thumbnail: {
          width: t.width,
          height: t.height,
          sourceWidth: t.sourceWidth,
          sourceHeight: t.sourceHeight,
          data: data.toString('base64'),
        },
        grabMs: performance.now() - started,
      };
    }
    case 'save': {
      if (lastGrab === null) {
        throw new Error('nothing grabbed yet');
      }
      const png = encodePngRgb(lastGrab.rgb, lastGrab.width, lastGrab.height);
      fs.mkdirSync(path.dirname(request.path), { recursive: true });
      const tmp = `${request.path}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        fs.writeFileSync(tmp, png);
        fs.renameSync(tmp, request.path);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
      return { bytes: png.length };
    }
    case 'move':
      await mouse.setPosition(new Point(request.x, request.y));
      return null;
    case 'button':
      if (request.down) {
        await mouse.pressButton(BUTTONS[request.button]);
      } else {
        await mouse.releaseButton(BUTTONS[request.button]);
      }
      return null;
    case 'click':
      for (let i = 0; i < request.count; i++) {
        await mouse.pressButton(BUTTONS[request.button]);
        await mouse.releaseButton(BUTTONS[request.button]);
      }
      return null;
    case 'scroll':
      if (request.dy > 0) {
        await mouse.scrollUp(request.dy);
      } else if (request.dy < 0) {
        await mouse.scrollDown(-request.dy);
      }
      if (request.dx > 0) {
        await mouse.scrollRight(request.dx);
      } else if (request.dx < 0) {
        await mouse.scrollLeft(-request.dx);
      }
      return null;
    case 'type':
      await typeText(request.text);
      return null;
    case 'keys':
      await toggleKeys(request.keys.map(keyOf), request.down);
      return null;
    case 'quit':
      return null;
    default:
      throw new Error(`unknown op '${String((request as { op: unknown }).op)}'`);
  }
}

function reply(line: object): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

const input = readline.createInterface({ input: process.stdin });
// requests run one at a time, in order
const lines: string[] = [];
let wake: (() => void) | null = null;
let isClosed = false;
input.on('line', (line) => {
  lines.push(line);
  wake?.();
});
// the parent went away: finish what was asked, then exit
input.on('close', () => {
  isClosed = true;
  wake?.();
});

async function serve(): Promise<void> {
  for (;;) {
    const line = lines.shift();
    if (line === undefined) {
      if (isClosed) {
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      continue;
    }
    let request: DriverRequest;
    try {
      request = parseDriverRequest(line);
    } catch (error) {
      process.stderr.write(`replay-driver: bad request: ${String(error)}\n`);
      continue;
    }
    try {
      reply({ id: request.id, ok: true, value: await handle(request) });
    } catch (error) {
      reply({
        id: request.id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    if (request.op === 'quit') {
      return;
    }
  }
}

await serve();
process.stdout.end(() => process.exit(0));
