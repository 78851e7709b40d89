import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createApiClient,
  httpTransport,
  ipcTransport,
  type WindowApi,
} from '../../../src/renderer/api';
import { parseEventMessage, type EventSourceLike } from '../../../src/renderer/api/http-transport';

type FetchCall = { url: string; init: RequestInit };

function fakeFetch(respond: (call: FetchCall) => Response | Promise<Response>) {
  const calls: FetchCall[] = [];
  const impl = (async (url: string, init: RequestInit) => {
    const call = { url, init };
    calls.push(call);
    return respond(call);
  }) as unknown as typeof fetch;
  return { impl, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('http transport', () => {
  it('POSTs JSON to /api/<method> with same-origin credentials and unwraps the value', async () => {
    const f = fakeFetch(() => json(200, { ok: true, value: { total: 0, items: [] } }));
    const client = createApiClient(
      httpTransport({ baseUrl: 'http://127.0.0.1:9/', fetchImpl: f.impl, openEvents: null }),
    );
    await expect(client.call('recordings:list', { limit: 5 })).resolves.toEqual({
      total: 0,
      items: [],
    });
    expect(f.calls[0]?.url).toBe('http://127.0.0.1:9/api/recordings:list');
    expect(f.calls[0]?.init).toMatchObject({
      method: 'POST',
      credentials: 'same-origin',
      body: '{"limit":5}',
    });
    expect((f.calls[0]?.init.headers as Record<string, string>)['content-type']).toBe(
      'application/json',
    );
  });

  it('turns an error envelope (any HTTP status) into an ApiError with its field', async () => {
    const f = fakeFetch(() =>
      json(400, {
        ok: false,
        error: {
          code: 'INVALID_PAYLOAD',
          message: 'edit.at must be an integer',
          details: { field: 'edit.at' },
        },
      }),
    );
    const client = createApiClient(httpTransport({ fetchImpl: f.impl, openEvents: null }));
    const e = await client
      .call('edits:apply', { id: 'x', edit: { op: 'split', stepId: 's', at: 1.5 } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({
      code: 'INVALID_PAYLOAD',
      message: 'edit.at must be an integer',
      field: 'edit.at',
    });
  });

  it.each([
    ['a 401 page', () => new Response('<h1>no</h1>', { status: 401 }), 'UNAUTHORIZED'],
    ['a 502 from a proxy', () => new Response('bad gateway', { status: 502 }), 'BAD_RESPONSE'],
    [
      'a network failure',
      () => {
        throw new TypeError('Failed to fetch');
      },
      'NETWORK',
    ],
    [
      'an unknown error code',
      () => json(500, { ok: false, error: { code: 'WHAT', message: 'm' } }),
      'INTERNAL',
    ],
  ])('maps %s to %s', async (_name, respond, code) => {
    const f = fakeFetch(respond);
    const client = createApiClient(httpTransport({ fetchImpl: f.impl, openEvents: null }));
    await expect(client.call('recordings:get', { id: 'x' })).rejects.toMatchObject({ code });
  });

  it('shares one event stream, dispatches named events and closes with the last listener', () => {
    const sources: {
      url: string;
      listeners: Map<string, ((e: { data?: unknown }) => void)[]>;
      closed: boolean;
    }[] = [];
    const openEvents = (url: string): EventSourceLike => {
      const s = {
        url,
        listeners: new Map<string, ((e: { data?: unknown }) => void)[]>(),
        closed: false,
      };
      sources.push(s);
      return {
        addEventListener: (type, l) => s.listeners.set(type, [...(s.listeners.get(type) ?? []), l]),
        close: () => {
          s.closed = true;
        },
        onerror: null,
      };
    };
    const client = createApiClient(
      httpTransport({ baseUrl: '', openEvents, fetchImpl: fakeFetch(() => json(200, {})).impl }),
    );
    const got: unknown[] = [];
    const off1 = client.on('recordings:changed', (p) => got.push(['changed', p.id]));
    const off2 = client.on('exports:progress', (p) => got.push(['progress', p.done]));
    expect(sources).toHaveLength(1);
    expect(sources[0]?.url).toBe('/api/events');
    const fire = (type: string, data: string) =>
      sources[0]?.listeners.get(type)?.forEach((l) => l({ data }));
    fire('recordings:changed', '{"id":"r1"}');
    fire('exports:progress', '{"done":2,"total":3,"recordingId":"r1","phase":"x"}');
    fire('message', '{"event":"recordings:changed","payload":{"id":"r2"}}');
    fire('recordings:changed', 'not json');
    expect(got).toEqual([
      ['changed', 'r1'],
      ['progress', 2],
      ['changed', 'r2'],
    ]);
    off1();
    expect(sources[0]?.closed).toBe(false);
    off2();
    expect(sources[0]?.closed).toBe(true);
  });

  it('parses only known events', () => {
    expect(parseEventMessage('uploads:secret', '{}')).toBeNull();
    expect(parseEventMessage('message', '{"type":"exports:progress","data":{"done":1}}')).toEqual({
      event: 'exports:progress',
      payload: { done: 1 },
    });
  });
});

describe('ipc transport', () => {
  it('calls window.api.invoke with the method and payload and unwraps the Result', async () => {
    const invoked: unknown[] = [];
    const listeners: ((p: unknown) => void)[] = [];
    const bridge: WindowApi = {
      invoke: (method, payload) => {
        invoked.push([method, payload]);
        return Promise.resolve(
          method === 'recordings:get'
            ? { ok: true, value: { id: 'r1' } }
            : { ok: false, error: { code: 'NOT_FOUND', message: 'No recording r9' } },
        );
      },
      on: (_event, l) => {
        listeners.push(l);
        return () => listeners.splice(listeners.indexOf(l), 1);
      },
    };
    const client = createApiClient(ipcTransport(bridge));
    await expect(client.call('recordings:get', { id: 'r1' })).resolves.toEqual({ id: 'r1' });
    await expect(client.call('recordings:delete', { id: 'r9' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(invoked).toEqual([
      ['recordings:get', { id: 'r1' }],
      ['recordings:delete', { id: 'r9' }],
    ]);
    const seen: string[] = [];
    const off = client.on('recordings:changed', (p) => seen.push(p.id));
    listeners[0]?.({ id: 'r1' });
    off();
    expect(listeners).toHaveLength(0);
    expect(seen).toEqual(['r1']);
  });

  it('reports a bridge that answers without a Result', async () => {
    const bridge: WindowApi = { invoke: () => Promise.resolve('??'), on: () => () => undefined };
    await expect(
      createApiClient(ipcTransport(bridge)).call('recordings:get', { id: 'x' }),
    ).rejects.toMatchObject({
      code: 'BAD_RESPONSE',
    });
  });
});
