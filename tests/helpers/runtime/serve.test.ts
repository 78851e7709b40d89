// The helper-side protocol loop (src/helpers/runtime/serve.ts; docs/helper-protocol.md §2, §4)
// over in-memory streams: the v2 hello, answers in request order, coded errors, events, and the
// end on the shutdown line or stdin EOF only after every started request was answered.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { HelperHandler } from '../../../src/helpers/runtime/serve';
import { HelperFailure, serveHelper } from '../../../src/helpers/runtime/serve';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function serve(handlers: Record<string, HelperHandler> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  output.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const part of parts) {
      lines.push(JSON.parse(part) as Record<string, unknown>);
    }
  });
  const served = serveHelper({
    name: 'test-helper',
    os: 'testos',
    capabilities: ['elementAt', 'displays'],
    handlers,
    input,
    output,
    clockSec: () => 12.5,
    pid: 4242,
  });
  const send = (value: unknown): void => {
    input.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  };
  /** Resolves once `count` lines (hello included) were printed. */
  const linesUntil = async (count: number): Promise<Record<string, unknown>[]> => {
    for (let i = 0; i < 200 && lines.length < count; i += 1) {
      await sleep(5);
    }
    return lines;
  };
  return { input, lines, served, send, linesUntil };
}

describe('serveHelper', () => {
  it('prints the v2 hello line first', async () => {
    const { lines, linesUntil, input, served } = serve();
    await linesUntil(1);
    expect(lines[0]).toEqual({
      type: 'hello',
      protocol: 2,
      capabilities: ['elementAt', 'displays'],
      helper: { name: 'test-helper', os: 'testos', pid: 4242 },
    });
    input.end();
    await served.done;
  });

  it('answers requests in the order they came, even when a later one is quicker', async () => {
    const { send, linesUntil, input, served } = serve({
      elementAt: async (params) => {
        await sleep(Number(params.delayMs));
        return { x: params.x };
      },
      displays: () => [],
    });
    send({ id: 1, method: 'elementAt', params: { x: 1, delayMs: 60 } });
    send({ id: 2, method: 'elementAt', params: { x: 2, delayMs: 0 } });
    send({ id: 3, method: 'displays' });
    send({ id: 4, method: 'elementAt', params: 'not an object' });
    const lines = await linesUntil(5);
    expect(lines.slice(1, 4)).toEqual([
      { id: 1, ok: true, result: { x: 1 } },
      { id: 2, ok: true, result: { x: 2 } },
      { id: 3, ok: true, result: [] },
    ]);
    // params that are not an object reach the handler as {}
    expect(lines[4]).toEqual({ id: 4, ok: true, result: {} });
    input.end();
    await served.done;
  });

  it('answers an unknown method with HELPER_UNKNOWN_METHOD, keeps HelperFailure codes', async () => {
    const { send, linesUntil, input, served } = serve({
      elementAt: () => {
        throw new HelperFailure('PERMISSION_DENIED', 'grant Accessibility in System Settings');
      },
      displays: () => {
        throw new Error('CGGetActiveDisplayList failed');
      },
    });
    send({ id: 1, method: 'snapshotFocusedWindow', params: {} });
    send({ id: 2, method: 'elementAt', params: { x: 0, y: 0 } });
    send({ id: 3, method: 'displays', params: {} });
    const lines = await linesUntil(4);
    expect(lines.slice(1)).toEqual([
      {
        id: 1,
        ok: false,
        error: {
          code: 'HELPER_UNKNOWN_METHOD',
          message: "no method 'snapshotFocusedWindow' in this helper",
        },
      },
      {
        id: 2,
        ok: false,
        error: { code: 'PERMISSION_DENIED', message: 'grant Accessibility in System Settings' },
      },
      {
        id: 3,
        ok: false,
        error: { code: 'HELPER_REQUEST_FAILED', message: 'CGGetActiveDisplayList failed' },
      },
    ]);
    input.end();
    await served.done;
  });

  it('prints events with the helper clock, and none after the end', async () => {
    const { served, linesUntil, send, lines } = serve();
    served.emit('focus', { role: 'AXButton', name: 'OK', isSecure: false });
    await linesUntil(2);
    expect(lines[1]).toEqual({
      type: 'event',
      event: 'focus',
      t: 12.5,
      role: 'AXButton',
      name: 'OK',
      isSecure: false,
    });
    send({ type: 'shutdown' });
    await served.done;
    served.emit('focus', { role: 'AXButton', name: 'late', isSecure: false });
    await sleep(20);
    expect(lines).toHaveLength(2);
  });

  it('skips lines that are not requests and goes on', async () => {
    const { send, linesUntil, input, served } = serve({ displays: () => 'ok' });
    send('not json');
    send({ method: 'displays' });
    send({ id: 1.5, method: 'displays' });
    send('');
    send({ id: 7, method: 'displays' });
    const lines = await linesUntil(2);
    expect(lines.slice(1)).toEqual([{ id: 7, ok: true, result: 'ok' }]);
    input.end();
    await served.done;
  });

  it('ends on the shutdown line after answering what it started, ignoring later requests', async () => {
    const { send, lines, served } = serve({
      elementAt: async () => {
        await sleep(50);
        return 'slow';
      },
      displays: () => 'after shutdown',
    });
    send({ id: 1, method: 'elementAt', params: {} });
    send({ type: 'shutdown' });
    send({ id: 2, method: 'displays', params: {} });
    await expect(served.done).resolves.toBe('shutdown');
    expect(lines.slice(1)).toEqual([{ id: 1, ok: true, result: 'slow' }]);
  });

  it('ends on stdin EOF after answering pending requests, a last line without newline included', async () => {
    const { input, lines, served } = serve({
      elementAt: async () => {
        await sleep(50);
        return 'pending';
      },
      displays: () => 'last',
    });
    input.write('{"id":1,"method":"elementAt","params":{}}\n{"id":2,"method":"displays"}');
    input.end();
    await expect(served.done).resolves.toBe('eof');
    expect(lines.slice(1)).toEqual([
      { id: 1, ok: true, result: 'pending' },
      { id: 2, ok: true, result: 'last' },
    ]);
  });

  it('takes CRLF line ends and requests split across chunks', async () => {
    const { input, linesUntil, served } = serve({ displays: () => 'crlf' });
    input.write('{"id":1,"met');
    input.write('hod":"displays"}\r\n');
    const lines = await linesUntil(2);
    expect(lines[1]).toEqual({ id: 1, ok: true, result: 'crlf' });
    input.end();
    await served.done;
  });
});
