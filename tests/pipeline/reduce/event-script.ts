// Builds raw event streams for reducer tests: times advance in whole milliseconds from t0.
import type { MouseButton, RawEvent, RawEventKind } from '../../../src/shared/domain/raw-event';
import { EVENT_FLAGS } from '../../../src/shared/domain/raw-event';
import type { ReduceContext } from '../../../src/pipeline/reduce';

/** Default context of synthetic tests: a 1920×1080 Windows recording by our recorder. */
export const TEST_CONTEXT: ReduceContext = {
  screen: { width: 1920, height: 1080 },
  scaleFactor: 1,
  platform: 'win32',
  source: 'recorder',
};

const PRINTABLE_CHAR = /^\P{C}$/u;

/** Options of one key event. */
export type KeyOptions = {
  /** OS-produced text (default: the name when it is one printable character). */
  char?: string | null;
  /** Set EVENT_FLAGS.repeat. */
  isRepeat?: boolean;
  /** Set EVENT_FLAGS.control. */
  isControl?: boolean;
};

/** A fluent raw-event writer; `now` is the recording clock in ms. */
export class EventScript {
  readonly events: RawEvent[] = [];
  now: number;
  x = 0;
  y = 0;

  constructor(startMs = 10_000) {
    this.now = startMs;
  }

  private push(kind: RawEventKind, fields: Partial<RawEvent>): this {
    this.events.push({
      idx: this.events.length,
      tMs: this.now,
      kind,
      x: null,
      y: null,
      button: null,
      keycode: null,
      key: null,
      char: null,
      keyRaw: null,
      modifiers: 0,
      dx: null,
      dy: null,
      flags: 0,
      ...fields,
    });
    return this;
  }

  /** Advances the clock by `ms`. */
  wait(ms: number): this {
    this.now += ms;
    return this;
  }

  /** One move event to (x, y) after `stepMs`. */
  move(x: number, y: number, stepMs = 8): this {
    this.wait(stepMs);
    this.x = x;
    this.y = y;
    return this.push('move', { x, y });
  }

  /** `count` moves in a straight line to (x, y). */
  moveTo(x: number, y: number, count = 5, stepMs = 8): this {
    const fromX = this.x;
    const fromY = this.y;
    for (let i = 1; i <= count; i += 1) {
      this.move(
        Math.round(fromX + ((x - fromX) * i) / count),
        Math.round(fromY + ((y - fromY) * i) / count),
        stepMs,
      );
    }
    return this;
  }

  down(button: MouseButton = 'left', flags = 0): this {
    return this.push('down', { x: this.x, y: this.y, button, flags });
  }

  up(button: MouseButton = 'left', flags = 0): this {
    return this.push('up', { x: this.x, y: this.y, button, flags });
  }

  /** Press, hold `holdMs`, release at the same point. */
  click(button: MouseButton = 'left', holdMs = 80): this {
    this.down(button);
    this.wait(holdMs);
    return this.up(button);
  }

  wheel(dx: number, dy: number): this {
    return this.push('wheel', { x: this.x, y: this.y, dx, dy });
  }

  keyDown(name: string, options: KeyOptions = {}): this {
    return this.key('keydown', name, options);
  }

  keyUp(name: string, options: KeyOptions = {}): this {
    return this.key('keyup', name, options);
  }

  /** Down, `holdMs`, up. */
  tap(name: string, holdMs = 60, options: KeyOptions = {}): this {
    this.keyDown(name, options);
    this.wait(holdMs);
    return this.keyUp(name, options);
  }

  /** Taps each character of `text` (AgentNet-style names), `gapMs` apart. */
  type(text: string, gapMs = 100): this {
    for (const char of text) {
      this.tap(char === ' ' ? 'space' : char, 50);
      this.wait(gapMs);
    }
    return this;
  }

  other(name: string): this {
    return this.push('other', { keyRaw: name });
  }

  private key(kind: 'keydown' | 'keyup', name: string, options: KeyOptions): this {
    const char =
      options.char !== undefined ? options.char : PRINTABLE_CHAR.test(name) ? name : null;
    const flags =
      (options.isRepeat === true ? EVENT_FLAGS.repeat : 0) |
      (options.isControl === true ? EVENT_FLAGS.control : 0);
    return this.push(kind, { key: name, char, keyRaw: name, flags });
  }
}
