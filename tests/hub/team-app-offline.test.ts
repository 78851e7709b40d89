// Issue 27's fault "database unreachable → coded error with a fix, the app keeps working locally
// and retries", through the local contract the app and serve use (team:* methods of
// createServices with background retries on) against a real hub process (`hub --data DIR`).
// The library signs in through a small proxy in front of the hub (as through a reverse proxy), so
// the test can make the hub answer 503 HUB_DB_UNREACHABLE, and kill it right after it registered
// a retried submit but before its answer arrives. Hub stopped → team:submit answers `queued`
// (kept in the pending list with the error's fix; the library keeps working) → hub back → the
// submission registers with no user action, also after the host restarted meanwhile; killed
// mid-retry → still exactly one submission, version 1.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary, type Library } from '../../src/services/library/library';
import { createServices, type Services } from '../../src/services/create-services';
import type { ApiMethods } from '../../src/shared/contract';
import { copyExampleLibrary } from '../helpers/example-library';
import { addHubUser, startHubProcess, type HubProcess } from './hub-process';
import { until } from '../helpers/wait';

const NEW_PASSWORD = 'a long new password 42';

let root: string;
let dataDir: string;
let hub: HubProcess | null = null;
let hubPort = 0;
let proxy: http.Server;
let proxyUrl = '';
let lib: Library;
let services: Services;
let recordingId = '';
const events: { event: string; payload: unknown }[] = [];
/** How the proxy treats calls: pass them on, answer as a hub whose database is down, or kill
 * the hub once it registered a submission (its answer never arrives). */
let mode: 'pass' | 'db-down' | 'kill-on-register' = 'pass';
let registersSeen = 0;

// forwards to the hub; see `mode`
function proxyRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
  const isRegister = req.url === '/api/submissions:register';
  if (isRegister) {
    registersSeen += 1;
  }
  if (mode === 'db-down' && req.url?.startsWith('/api/submissions:')) {
    req.resume();
    // what the hub answers while its PostgreSQL is away (src/hub/db/open.ts)
    const body = JSON.stringify({
      ok: false,
      error: {
        code: 'HUB_DB_UNREACHABLE',
        message: 'the hub cannot reach its database',
        fix: 'Your work stays in your library: try again later.',
      },
    });
    res.writeHead(503, { 'content-type': 'application/json' }).end(body);
    return;
  }
  const armed = isRegister && mode === 'kill-on-register';
  const upstream = http.request(
    {
      host: '127.0.0.1',
      port: hubPort,
      method: req.method,
      path: req.url,
      headers: {
        ...req.headers,
        host: `127.0.0.1:${hubPort}`,
        ...(req.headers.origin ? { origin: `http://127.0.0.1:${hubPort}` } : {}),
      },
      agent: false,
    },
    (answer) => {
      if (armed) {
        mode = 'pass';
        answer.resume();
        void (async () => {
          await hub!.stop('SIGKILL');
          res.destroy();
        })();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  // the hub is down: the connection drops, as a dead host's would
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

async function call<M extends keyof ApiMethods>(
  method: M,
  payload: ApiMethods[M]['input'],
): Promise<ApiMethods[M]['output']> {
  const result = await services.dispatch(method, payload);
  if (!result.ok) {
    throw new Error(`${method}: ${result.error.code} ${result.error.message}`);
  }
  return result.value as ApiMethods[M]['output'];
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'team-app-offline-'));
  dataDir = path.join(root, 'hub-data');
  const libraryDir = path.join(root, 'library');
  const [otp, id] = await Promise.all([
    addHubUser('ann', ['annotator'], ['--data', dataDir]),
    copyExampleLibrary(libraryDir),
  ]);
  recordingId = id;
  hub = await startHubProcess(['--data', dataDir]);
  hubPort = hub.port;
  proxy = http.createServer(proxyRequest);
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  lib = openLibrary(libraryDir);
  services = createServices(lib, {
    appVersion: '0.0.0-test',
    emit: (event, payload) => events.push({ event, payload }),
    team: { retry: { firstDelayMs: 300, maxDelayMs: 1_000 } },
  });
  // the one-time password first, then the new one (what the Team page does)
  const first = await call('team:sign-in', { url: proxyUrl, user: 'ann', password: otp });
  expect(first.mustChangePassword).toBe(true);
  expect(fs.existsSync(`${libraryDir}.hub-credentials.json`)).toBe(false);
  const signedIn = await call('team:change-password', {
    url: proxyUrl,
    user: 'ann',
    password: otp,
    newPassword: NEW_PASSWORD,
  });
  expect(signedIn).toMatchObject({ mustChangePassword: false, user: 'ann', roles: ['annotator'] });
  // serve's store: the 0600 file beside the library
  expect(fs.statSync(`${libraryDir}.hub-credentials.json`).mode & 0o777).toBe(0o600);
}, 240_000);

afterAll(async () => {
  await services?.close();
  lib?.close();
  if (hub) {
    await hub.stop('SIGKILL');
  }
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await rm(root, { recursive: true, force: true });
});

describe('team submits while the hub is away (the second test continues the first)', () => {
  it('hub database down (503), then the hub stopped: team:submit answers queued with the fix; the library keeps working', async () => {
    mode = 'db-down';
    const [down] = (await call('team:submit', { ids: [recordingId] })).submissions;
    expect(down).toMatchObject({
      recording: recordingId,
      state: 'queued',
      error: { code: 'HUB_DB_UNREACHABLE', fix: expect.stringMatching(/library/) as unknown },
    });
    mode = 'pass';
    await hub!.stop('SIGKILL');
    const status = await call('team:status', {});
    expect(status).toMatchObject({ signedIn: true, user: 'ann', hub: { reachable: false } });
    expect(status.hub.error?.code).toBe('HUB_UNREACHABLE');
    expect(status.pending).toMatchObject([{ recording: recordingId, state: 'waiting' }]);
    // the pending list shows on My submissions, with the hub's error instead of a throw
    const mine = await call('team:submissions', {});
    expect(mine.hubError?.code).toBe('HUB_UNREACHABLE');
    expect(mine.hubError?.fix).toBeTruthy();
    expect(mine.pending.map((p) => p.recording)).toEqual([recordingId]);
    // the retries keep failing while the hub is away; local work goes on
    await until(
      () => {
        const file = lib.resolve('uploads/hub-pending.json');
        const entries = (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: unknown[] })
          .entries as { attempts: number }[];
        return entries[0]!.attempts >= 3;
      },
      'two background retries',
      15_000,
    );
    const page = await call('recordings:list', {});
    expect(page.items.map((r) => r.id)).toContain(recordingId);
    expect(registersSeen).toBe(0);
  }, 60_000);

  it('after a host restart the hub comes back but dies right after registering a retry; back again, the submission registers by itself exactly once', async () => {
    // the host (app or serve) restarts meanwhile: the new one picks the pending list up
    await services.close();
    services = createServices(lib, {
      appVersion: '0.0.0-test',
      emit: (event, payload) => events.push({ event, payload }),
      team: { retry: { firstDelayMs: 300, maxDelayMs: 1_000 } },
    });
    mode = 'kill-on-register';
    hub = await startHubProcess(['--data', dataDir], { port: hubPort });
    // the background retry reaches register; the hub registers it and dies unanswered
    await until(
      () => registersSeen >= 1 && hub!.child.signalCode !== null,
      'the hub killed on register',
      30_000,
    );
    const meanwhile = await call('team:status', {});
    expect(meanwhile.pending).toMatchObject([{ recording: recordingId, state: 'waiting' }]);
    expect(registersSeen).toBe(1);
    hub = await startHubProcess(['--data', dataDir], { port: hubPort });
    // no user action: the next retry registers it (idempotent by the manifest's SHA-256)
    await until(
      () =>
        events.some(
          (e) =>
            e.event === 'team:changed' && (e.payload as { reason: string }).reason === 'submitted',
        ),
      'the retried submit to go through',
      30_000,
    );
    expect(registersSeen).toBeGreaterThanOrEqual(2);
    const after = await call('team:status', {});
    expect(after.pending).toEqual([]);
    expect(after.hub.reachable).toBe(true);
    const mine = await call('team:submissions', {});
    expect(mine.hubError).toBeNull();
    expect(mine.submissions).toHaveLength(1);
    expect(mine.submissions[0]).toMatchObject({
      recording: recordingId,
      version: 1,
      isLocal: true,
    });
    // registered: waiting for review, or for the hub's intake check before it
    expect(['intake', 'submitted']).toContain(mine.submissions[0]!.status);
    expect(fs.existsSync(lib.resolve('uploads/hub-pending.json'))).toBe(false);
  }, 90_000);
});
