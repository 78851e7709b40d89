import { describe, expect, it } from 'vitest';
import type { AccessibilityGap } from '../../../src/axtree/adapter';
import type { AxFocusEvent } from '../../../src/axtree/model';
import { HELPER_PROTOCOL_VERSION } from '../../../src/axtree/platform/helper-protocol';
import {
  NativeHelperAdapter,
  encodeHelperRequest,
  encodeHelperShutdown,
  parseActiveWindowResult,
  parseHelperDisplays,
  parseHelperLine,
  parsePermissionsResult,
} from '../../../src/axtree/platform/native-helper';
import { isAppError } from '../../../src/shared/errors';
import type { ErrorCode } from '../../../src/shared/errors';
import type { TranscriptEntry } from './transcript-channel';
import { TranscriptChannel } from './transcript-channel';

function protocolErrorOf(line: string): string {
  try {
    parseHelperLine(line);
  } catch (error) {
    expect(isAppError(error, 'HELPER_PROTOCOL_ERROR')).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`no protocol error for ${line}`);
}

describe('parseHelperLine', () => {
  it('parses hello, responses and events', () => {
    expect(parseHelperLine('{"type":"hello","protocol":1,"capabilities":["elementAt"]}')).toEqual({
      type: 'hello',
      protocol: 1,
      capabilities: ['elementAt'],
    });
    expect(parseHelperLine('{"id":3,"ok":true,"result":{"a":1}}')).toEqual({
      type: 'response',
      id: 3,
      ok: true,
      result: { a: 1 },
    });
    expect(parseHelperLine('{"id":4,"ok":true}')).toEqual({
      type: 'response',
      id: 4,
      ok: true,
      result: null,
    });
    expect(parseHelperLine('{"id":5,"ok":false,"error":{"code":"X","message":"m"}}')).toEqual({
      type: 'response',
      id: 5,
      ok: false,
      error: { code: 'X', message: 'm' },
    });
    const event = parseHelperLine('{"type":"event","t":1.5,"event":"focus","role":"text"}');
    expect(event).toMatchObject({ type: 'event', t: 1.5, event: 'focus' });
  });

  it('parses the v2 hello with the helper that answered', () => {
    expect(
      parseHelperLine(
        '{"type":"hello","protocol":2,"capabilities":[],"helper":{"name":"ax-helper","os":"darwin","pid":7,"version":"1.2"}}',
      ),
    ).toEqual({
      type: 'hello',
      protocol: 2,
      capabilities: [],
      helper: { name: 'ax-helper', os: 'darwin', pid: 7, version: '1.2' },
    });
    expect(HELPER_PROTOCOL_VERSION).toBe(2);
  });

  it.each([
    ['{"type":"hello","protocol":2,"capabilities":[],"helper":"ax"}', /helper that is not/],
    [
      '{"type":"hello","protocol":2,"capabilities":[],"helper":{"name":"a","os":"b"}}',
      /not \{name/,
    ],
    ['not json', /not JSON/],
    ['[1,2]', /not an object/],
    ['{"type":"hello","capabilities":[]}', /integer protocol/],
    ['{"type":"hello","protocol":1,"capabilities":[1]}', /capabilities string array/],
    ['{"type":"event","t":1}', /without an event name/],
    ['{"id":"1","ok":true}', /non-integer id/],
    ['{"id":1,"ok":false,"error":"boom"}', /ok\/error\{code,message\}/],
    ['{"id":1}', /ok\/result/],
    ['{"type":"banner"}', /unknown message/],
    // cases the valibot schemas must keep (issue 31 item 6)
    ['null', /not an object/],
    ['{"type":"hello","protocol":1.5,"capabilities":[]}', /integer protocol/],
    ['{"type":"hello","protocol":2}', /capabilities string array/],
    ['{"type":"hello","protocol":2,"capabilities":[],"helper":null}', /helper that is not/],
    [
      '{"type":"hello","protocol":2,"capabilities":[],"helper":{"name":"a","os":"b","pid":7,"version":1}}',
      /helper that is not/,
    ],
    ['{"type":"event","event":3}', /without an event name/],
    ['{"id":1.5,"ok":true}', /non-integer id/],
    ['{"id":1,"ok":"yes","result":1}', /ok\/result/],
    ['{"id":1,"ok":false,"error":{"code":"X"}}', /ok\/error\{code,message\}/],
  ])('rejects %s', (line, message) => {
    expect(protocolErrorOf(line)).toMatch(message);
  });

  it('reads a missing or non-number t as null, drops unknown hello fields, keeps a null result', () => {
    expect(parseHelperLine('{"type":"event","event":"focus","t":"soon"}')).toMatchObject({
      t: null,
    });
    expect(parseHelperLine('{"type":"event","event":"displays"}')).toMatchObject({ t: null });
    expect(
      parseHelperLine(
        '{"type":"hello","protocol":2,"capabilities":["a"],"extra":1,"helper":{"name":"h","os":"o","pid":1,"x":2}}',
      ),
    ).toEqual({
      type: 'hello',
      protocol: 2,
      capabilities: ['a'],
      helper: { name: 'h', os: 'o', pid: 1 },
    });
    expect(parseHelperLine('{"id":2,"ok":true,"result":null}')).toEqual({
      type: 'response',
      id: 2,
      ok: true,
      result: null,
    });
    expect(
      parseHelperLine('{"id":2,"ok":false,"error":{"code":"X","message":"m","more":1}}'),
    ).toEqual({ type: 'response', id: 2, ok: false, error: { code: 'X', message: 'm' } });
  });

  it('cuts very long lines in its message', () => {
    expect(protocolErrorOf(`x${'y'.repeat(1000)}`).length).toBeLessThan(300);
  });
});

describe('encoders', () => {
  it('writes one JSON object per line', () => {
    expect(encodeHelperRequest(7, 'elementAt', { x: 1, y: 2 })).toBe(
      '{"id":7,"method":"elementAt","params":{"x":1,"y":2}}\n',
    );
    expect(encodeHelperShutdown()).toBe('{"type":"shutdown"}\n');
  });
});

describe('result shapes', () => {
  it('validates activeWindow, keeping negative origins', () => {
    const window = {
      title: 'T',
      app: 'a',
      pid: 3,
      bounds: { x: -10, y: -20, width: 5, height: 6 },
    };
    expect(parseActiveWindowResult(window)).toEqual(window);
    expect(parseActiveWindowResult(null)).toBeNull();
    expect(() => parseActiveWindowResult({ ...window, pid: 1.5 })).toThrow(/result.pid/);
    expect(() =>
      parseActiveWindowResult({ ...window, bounds: { ...window.bounds, width: -1 } }),
    ).toThrow(/negative size/);
    expect(() => parseActiveWindowResult({ ...window, title: null })).toThrow(/result.title/);
  });

  it('validates displays and permissions', () => {
    const display = {
      id: '1',
      bounds: { x: -1920, y: 0, width: 1920, height: 1080 },
      scale: 1,
      primary: false,
    };
    expect(parseHelperDisplays([display])).toEqual([display]);
    expect(() => parseHelperDisplays({})).toThrow(/array of displays/);
    expect(() => parseHelperDisplays([{ ...display, scale: 0 }])).toThrow(/result\[0\].scale/);
    expect(() => parseHelperDisplays([{ ...display, id: 1 }])).toThrow(/result\[0\].id/);
    expect(() => parseHelperDisplays([{ ...display, primary: 'yes' }])).toThrow(/primary/);
    // macOS: the place in CGGetActiveDisplayList (avfoundation's screen number) is kept
    expect(parseHelperDisplays([{ ...display, listIndex: 1 }])[0]?.listIndex).toBe(1);
    expect(() => parseHelperDisplays([{ ...display, listIndex: -1 }])).toThrow(/listIndex/);
    const permissions = {
      accessibility: 'denied',
      screenRecording: 'unknown',
      inputMonitoring: 'granted',
    };
    expect(parsePermissionsResult(permissions)).toEqual(permissions);
    expect(() => parsePermissionsResult([])).toThrow('result: expected an object, got []');
    expect(() => parsePermissionsResult({ accessibility: 'granted' })).toThrow(
      'result.screenRecording: expected one of granted, denied, unknown, not-required, got undefined',
    );
    expect(() => parsePermissionsResult({ ...permissions, screenRecording: 'yes' })).toThrow(
      /result.screenRecording: expected one of granted, denied, unknown, not-required/,
    );
  });
});

const HELLO: TranscriptEntry = {
  from: 'helper',
  line: { type: 'hello', protocol: 2, capabilities: ['elementAt'] },
};
const request = (id: number, method: string, params: unknown = {}): TranscriptEntry => ({
  from: 'recorder',
  line: { id, method, params },
});
const answer = (id: number, result: unknown): TranscriptEntry => ({
  from: 'helper',
  line: { id, ok: true, result },
});
const event = (fields: Record<string, unknown>): TranscriptEntry => ({
  from: 'helper',
  line: { type: 'event', t: 1, ...fields },
});
let clockMs = 0;
const now = (): number => (clockMs += 10);

async function codeOf(promise: Promise<unknown>): Promise<ErrorCode> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) {
      return error.code;
    }
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('NativeHelperAdapter over an in-memory channel', () => {
  it('rejects results of the wrong shape with HELPER_PROTOCOL_ERROR and keeps the helper', async () => {
    const channel = new TranscriptChannel([
      HELLO,
      request(1, 'activeWindow'),
      answer(1, { title: 'T', app: 'a', pid: 1, bounds: null }),
      request(2, 'displays'),
      answer(2, [{ id: '1', bounds: { x: 0, y: 0, width: 1, height: 1 }, primary: true }]),
      request(3, 'permissions'),
      answer(3, { accessibility: true }),
      request(4, 'displays'),
      answer(4, []),
    ]);
    const adapter = new NativeHelperAdapter(channel, { now });
    await adapter.start();
    expect(await codeOf(adapter.activeWindow())).toBe('HELPER_PROTOCOL_ERROR');
    await expect(adapter.displays()).rejects.toThrow(
      /'displays' returned an invalid result: result\[0\].scale/,
    );
    expect(await codeOf(adapter.permissions())).toBe('HELPER_PROTOCOL_ERROR');
    await expect(adapter.displays()).resolves.toEqual([]);
    await adapter.stop();
    expect(channel.mismatches).toEqual([]);
  });

  it('marks focus events secure by the flag, the role or the state, dropping their names', async () => {
    const channel = new TranscriptChannel([
      HELLO,
      request(1, 'echo'),
      event({ event: 'focus', role: 'EditControl', name: 'Password', isSecure: true }),
      event({ event: 'focus', role: 'AXSecureTextField', name: 'PIN' }),
      event({ event: 'focus', role: 'EditControl', name: 'Code', states: ['secure'] }),
      event({ event: 'focus', role: 'EditControl', name: 'User', isSecure: false }),
      event({ event: 'focus', name: 'no role' }),
      event({ event: 'displays', displays: [{ id: 1 }] }),
      answer(1, 'done'),
    ]);
    const adapter = new NativeHelperAdapter(channel, { now });
    const focus: AxFocusEvent[] = [];
    const displays: unknown[] = [];
    adapter.onFocusChanged((e) => focus.push(e));
    adapter.onDisplaysChanged((d) => displays.push(d));
    await adapter.start();
    await expect(adapter.request('echo')).resolves.toBe('done');
    expect(focus.map(({ name, isSecure }) => [name, isSecure])).toEqual([
      ['', true],
      ['', true],
      ['', true],
      ['User', false],
    ]);
    // a malformed event is dropped, not fatal
    expect(displays).toEqual([]);
    await adapter.stop();
  });

  it('gives accessibility up when the replacements keep hanging (gap without an end)', async () => {
    const hung = (): TranscriptEntry[] => [
      HELLO,
      request(0, 'never'), // no request matches: the helper answers nothing
    ];
    let opened = 0;
    const adapter = new NativeHelperAdapter(
      () => {
        opened += 1;
        return new TranscriptChannel(hung());
      },
      { now, requestTimeoutMs: 20, timeoutsBeforeRestart: 2, maxRestarts: 1 },
    );
    const gaps: AccessibilityGap[] = [];
    adapter.onGap((g) => gaps.push(g));
    await adapter.start();
    for (let i = 0; i < 4; i += 1) {
      expect(await codeOf(adapter.request('echo'))).toBe('ACCESSIBILITY_TIMEOUT');
    }
    expect(await codeOf(adapter.request('echo'))).toBe('ACCESSIBILITY_UNAVAILABLE');
    expect(opened).toBe(2);
    expect(gaps.map((g) => [g.reason, g.endMs === null])).toEqual([
      ['helper-timeouts', false],
      ['helper-timeouts', true],
    ]);
    expect(gaps[1]?.detail).toMatch(/given up after 1 restarts/);
    await adapter.stop();
  });

  it('reports a gap without an end when the replacement does not start', async () => {
    let opened = 0;
    const adapter = new NativeHelperAdapter(
      () => {
        opened += 1;
        // the second helper never says hello
        return new TranscriptChannel(opened === 1 ? [HELLO, request(0, 'never')] : []);
      },
      { now, requestTimeoutMs: 20, startTimeoutMs: 50 },
    );
    const gaps: AccessibilityGap[] = [];
    adapter.onGap((g) => gaps.push(g));
    await adapter.start();
    for (let i = 0; i < 3; i += 1) {
      expect(await codeOf(adapter.request('echo'))).toBe('ACCESSIBILITY_TIMEOUT');
    }
    expect(await codeOf(adapter.request('echo'))).toBe('HELPER_START_TIMEOUT');
    expect(gaps).toHaveLength(1);
    expect(gaps[0]?.endMs).toBeNull();
    expect(gaps[0]?.detail).toMatch(/the new helper did not start: .*no hello line within 50 ms/);
    await adapter.stop();
  });

  it('counts only timeouts in a row: an answer in between resets the count', async () => {
    let opened = 0;
    const adapter = new NativeHelperAdapter(
      () => {
        opened += 1;
        return new TranscriptChannel([
          HELLO,
          request(1, 'hang'),
          request(2, 'hang'),
          request(3, 'echo'),
          answer(3, 'ok'),
          request(4, 'hang'),
          request(5, 'hang'),
        ]);
      },
      { now, requestTimeoutMs: 20 },
    );
    await adapter.start();
    expect(await codeOf(adapter.request('hang'))).toBe('ACCESSIBILITY_TIMEOUT');
    expect(await codeOf(adapter.request('hang'))).toBe('ACCESSIBILITY_TIMEOUT');
    await expect(adapter.request('echo')).resolves.toBe('ok');
    expect(await codeOf(adapter.request('hang'))).toBe('ACCESSIBILITY_TIMEOUT');
    expect(await codeOf(adapter.request('hang'))).toBe('ACCESSIBILITY_TIMEOUT');
    expect(opened).toBe(1);
    expect(adapter.restartCount).toBe(0);
    await adapter.stop();
  });

  it('stops promptly while a replacement is still starting', async () => {
    let opened = 0;
    const adapter = new NativeHelperAdapter(
      () => {
        opened += 1;
        return new TranscriptChannel(opened === 1 ? [HELLO, request(0, 'never')] : []);
      },
      { now, requestTimeoutMs: 20, startTimeoutMs: 60_000 },
    );
    await adapter.start();
    for (let i = 0; i < 3; i += 1) {
      await codeOf(adapter.request('echo'));
    }
    const t0 = performance.now();
    await adapter.stop();
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(opened).toBe(2);
  });
});
