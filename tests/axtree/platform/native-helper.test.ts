import { describe, expect, it } from 'vitest';
import {
  encodeHelperRequest,
  encodeHelperShutdown,
  parseHelperLine,
} from '../../../src/axtree/platform/native-helper';
import { isAppError } from '../../../src/shared/errors';

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

  it.each([
    ['not json', /not JSON/],
    ['[1,2]', /not an object/],
    ['{"type":"hello","capabilities":[]}', /integer protocol/],
    ['{"type":"hello","protocol":1,"capabilities":[1]}', /capabilities string array/],
    ['{"type":"event","t":1}', /without an event name/],
    ['{"id":"1","ok":true}', /non-integer id/],
    ['{"id":1,"ok":false,"error":"boom"}', /ok\/error\{code,message\}/],
    ['{"id":1}', /ok\/result/],
    ['{"type":"banner"}', /unknown message/],
  ])('rejects %s', (line, message) => {
    expect(protocolErrorOf(line)).toMatch(message);
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
