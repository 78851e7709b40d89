// The replay driver's JSON-lines protocol (src/replay/driver-protocol.ts): response and request
// lines, good and bad.
import { describe, expect, it } from 'vitest';
import { parseDriverRequest, parseDriverResponse } from '../../src/replay/driver-protocol';

describe('parseDriverResponse', () => {
  it('reads ok responses with their value (a missing value is null)', () => {
    expect(parseDriverResponse('{"id":3,"ok":true,"value":{"x":1,"y":2}}')).toEqual({
      id: 3,
      ok: true,
      value: { x: 1, y: 2 },
    });
    expect(parseDriverResponse('{"id":4,"ok":true}')).toEqual({ id: 4, ok: true, value: null });
    expect(parseDriverResponse('{"id":4,"ok":true,"value":null}')).toEqual({
      id: 4,
      ok: true,
      value: null,
    });
  });

  it('reads error responses; an error without a message gets a generic one', () => {
    expect(parseDriverResponse('{"id":5,"ok":false,"error":"X error"}')).toEqual({
      id: 5,
      ok: false,
      error: 'X error',
    });
    expect(parseDriverResponse('{"id":5,"ok":false}')).toEqual({
      id: 5,
      ok: false,
      error: 'driver error',
    });
  });

  it('is null for lines that are not responses', () => {
    for (const line of [
      '',
      'libnut: warning',
      '{"id":1',
      'null',
      '42',
      '"text"',
      '[1,true]',
      '{"ok":true}',
      '{"id":"1","ok":true}',
      '{"id":1,"ok":"yes"}',
      '{"id":1}',
    ]) {
      expect(parseDriverResponse(line), line).toBeNull();
    }
  });
});

describe('parseDriverRequest', () => {
  it('reads requests as sent', () => {
    expect(parseDriverRequest('{"id":1,"op":"hello"}')).toEqual({ id: 1, op: 'hello' });
    expect(parseDriverRequest('{"id":2,"op":"move","x":10,"y":20}')).toEqual({
      id: 2,
      op: 'move',
      x: 10,
      y: 20,
    });
    expect(
      parseDriverRequest('{"id":3,"op":"keys","keys":["LeftControl","C"],"down":true}'),
    ).toEqual({ id: 3, op: 'keys', keys: ['LeftControl', 'C'], down: true });
  });

  it('throws with a reason for lines that are not requests', () => {
    expect(() => parseDriverRequest('not json')).toThrow(SyntaxError);
    expect(() => parseDriverRequest('null')).toThrow(/JSON object/);
    expect(() => parseDriverRequest('7')).toThrow(/JSON object/);
    expect(() => parseDriverRequest('{"op":"hello"}')).toThrow(/numeric id and an op/);
    expect(() => parseDriverRequest('{"id":"1","op":"hello"}')).toThrow(/numeric id/);
    expect(() => parseDriverRequest('{"id":1,"op":7}')).toThrow(/an op/);
  });
});
