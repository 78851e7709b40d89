// Closing the hub's server (what SIGTERM does in `cua-annotator hub`): a request already being
// received is finished and answered (its change committed), close() still resolves, and new
// connections are refused. Deterministic: the body is sent only after the server confirmed (100 Continue) it
// has the request and close() has been called.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../../src/hub/db';
import { startHubFixture, type HubFixture } from './hub-fixture';

let hub: HubFixture;

beforeAll(async () => {
  hub = await startHubFixture();
}, 120_000);

afterAll(async () => {
  await hub?.close();
});

describe('hub shutdown', () => {
  it('a request in flight when close() is called is completed and answered (its change committed); close then resolves and new connections are refused', async () => {
    const token = await hub.token('admin');
    const body = JSON.stringify({ user: 'late', roles: ['annotator'] });
    let answered = false;
    const state: { closing: Promise<void> | null } = { closing: null };
    const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        `${hub.server.url}/api/users:add`,
        {
          method: 'POST',
          agent: false,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            authorization: `Bearer ${token}`,
            expect: '100-continue',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => {
            answered = true;
            resolve({ status: res.statusCode ?? 0, text });
          });
        },
      );
      req.on('error', reject);
      // Expect: 100-continue — the server answers 100 once it has parsed the request, so the
      // request is in flight (not an idle connection) when close() is called; then the body
      req.on('continue', () => {
        state.closing = hub.server.close();
        req.end(body);
      });
      req.flushHeaders();
    });
    const res = await reply;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ ok: true, value: { user: 'late' } });
    // close() was called while the body was still arriving, and it still resolves
    expect(state.closing).not.toBeNull();
    await state.closing;
    expect(answered).toBe(true);
    const audit = await listAudit(hub.hub.db, { limit: 5 });
    expect(audit[0]).toMatchObject({ action: 'user.add', target: 'user:late', actor: 'adm' });
    // no new connection once closed
    await expect(
      fetch(`${hub.server.url}/api/auth:whoami`, { method: 'POST', body: '{}' }),
    ).rejects.toThrow();
  });
});
