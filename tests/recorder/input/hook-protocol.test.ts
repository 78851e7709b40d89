// The JSON-lines protocol: encoders round-trip through the validating parser, and every kind of
// malformed line is named.
import { describe, expect, it } from 'vitest';
import {
  encodeEventLine,
  encodeLine,
  parseHookLine,
} from '../../../src/recorder/input/hook-protocol';

const KEY = { type: 4, time: 12, altKey: false, ctrlKey: true, metaKey: false, shiftKey: false };

describe('parseHookLine', () => {
  it('round-trips event lines from the encoder', () => {
    const line = encodeEventLine(1234.5, { ...KEY, keycode: 30 });
    expect(line.endsWith('\n')).toBe(true);
    expect(parseHookLine(line.trim())).toEqual({
      ok: true,
      line: { type: 'event', t: 1234.5, e: { ...KEY, keycode: 30 } },
    });
  });

  it('accepts hello, heartbeat, rest, lost and both response shapes', () => {
    const hello = { type: 'hello', protocol: 1, capabilities: ['mouse'], t: 1, pid: 42 };
    expect(parseHookLine(encodeLine(hello))).toEqual({ ok: true, line: hello });
    const heartbeat = { type: 'heartbeat', t: 2, seq: 0, sent: 7 };
    expect(parseHookLine(encodeLine(heartbeat))).toEqual({ ok: true, line: heartbeat });
    const rest = { type: 'rest', t: 3.5 };
    expect(parseHookLine(encodeLine(rest))).toEqual({ ok: true, line: rest });
    const lost = { type: 'lost', t: 4, keyPresses: 12 };
    expect(parseHookLine(encodeLine(lost))).toEqual({ ok: true, line: lost });
    expect(parseHookLine(encodeLine({ ...lost, keyPresses: 0 })).ok).toBe(false);
    expect(parseHookLine('{"id":1,"ok":true,"result":{"sent":3}}')).toEqual({
      ok: true,
      line: { type: 'response', id: 1, ok: true, result: { sent: 3 } },
    });
    expect(parseHookLine('{"id":"x","ok":false,"error":{"code":"E","message":"m"}}')).toEqual({
      ok: true,
      line: { type: 'response', id: 'x', ok: false, error: { code: 'E', message: 'm' } },
    });
  });

  it('accepts wheel and mouse events', () => {
    const wheel = {
      ...KEY,
      type: 11,
      x: 1,
      y: 2,
      clicks: 1,
      amount: 3,
      direction: 3,
      rotation: -1,
    };
    expect(parseHookLine(encodeEventLine(1, wheel)).ok).toBe(true);
    const press = { ...KEY, type: 7, x: 1, y: 2, button: 1, clicks: 1 };
    expect(parseHookLine(encodeEventLine(1, press)).ok).toBe(true);
  });

  it.each([
    ['{', 'not JSON'],
    ['42', 'not a JSON object'],
    ['{"type":"event"}', 'line of type "event" without a numeric t'],
    ['{"type":"event","t":1,"e":[]}', 'event line without an e object'],
    ['{"type":"event","t":1,"e":{"type":6}}', 'unknown e.type 6'],
    [
      `{"type":"event","t":1,"e":${JSON.stringify({ ...KEY, time: -1, keycode: 1 })}}`,
      'e.time must be a non-negative integer',
    ],
    [
      `{"type":"event","t":1,"e":${JSON.stringify({ ...KEY, shiftKey: 1, keycode: 1 })}}`,
      'e.shiftKey must be a boolean',
    ],
    [`{"type":"event","t":1,"e":${JSON.stringify(KEY)}}`, 'e.keycode must be an integer ≥ 0'],
    [
      `{"type":"event","t":1,"e":${JSON.stringify({ ...KEY, type: 9, x: 1.5, y: 2, button: 0, clicks: 0 })}}`,
      'e.x and e.y must be integers',
    ],
    ['{"type":"heartbeat","t":1,"seq":0}', 'heartbeat without integer seq/sent'],
    ['{"type":"rest","t":"soon"}', 'line of type "rest" without a numeric t'],
    [
      '{"type":"hello","t":1,"protocol":1,"capabilities":[1],"pid":2}',
      'hello without integer protocol/pid and string capabilities',
    ],
    ['{"type":"other","t":1}', 'unknown line type "other"'],
    ['{"id":{},"ok":true}', 'response id must be a number or string'],
    ['{"id":1,"ok":false}', 'error response without error.code/error.message'],
    // cases the valibot schemas must keep (issue 31 item 6)
    ['null', 'not a JSON object'],
    ['[]', 'not a JSON object'],
    ['{"type":"event","t":1}', 'event line without an e object'],
    ['{"type":"event","t":1,"e":{}}', 'unknown e.type undefined'],
    [
      `{"type":"event","t":1,"e":${JSON.stringify({ ...KEY, time: 1.5, keycode: 1 })}}`,
      'e.time must be a non-negative integer',
    ],
    [
      `{"type":"event","t":1,"e":${JSON.stringify({ ...KEY, altKey: null, shiftKey: 1, keycode: 1 })}}`,
      'e.altKey must be a boolean',
    ],
    [
      `{"type":"event","t":1,"e":${JSON.stringify({ ...KEY, type: 7, x: 1, y: 2, button: 1 })}}`,
      'e.button and e.clicks must be integers',
    ],
    [
      `{"type":"event","t":1,"e":${JSON.stringify({ ...KEY, type: 11, x: 1, y: 2, rotation: 1, direction: 3, amount: 0.5, clicks: 1 })}}`,
      'e.rotation, e.direction, e.amount and e.clicks must be integers',
    ],
    [
      `{"type":"event","t":1,"e":${JSON.stringify({ ...KEY, type: 11, rotation: 1, direction: 3, amount: 3, clicks: 1 })}}`,
      'e.x and e.y must be integers',
    ],
    ['{"type":"lost","t":1,"keyPresses":0}', 'lost line without a positive integer keyPresses'],
    ['{"type":"lost","t":1}', 'lost line without a positive integer keyPresses'],
    ['{"type":"heartbeat","t":1,"seq":1.5,"sent":2}', 'heartbeat without integer seq/sent'],
    [
      '{"type":"hello","t":1,"protocol":1,"capabilities":[]}',
      'hello without integer protocol/pid and string capabilities',
    ],
    ['{"t":1}', 'unknown line type undefined'],
    ['{"id":1,"ok":false,"error":{"code":"X"}}', 'error response without error.code/error.message'],
  ])('rejects %s', (text, problem) => {
    expect(parseHookLine(text)).toEqual({ ok: false, problem });
  });
});
