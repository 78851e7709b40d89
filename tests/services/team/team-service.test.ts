// The team service's pending list against a scripted hub (an in-process HTTP server answering
// the hub's envelope): a submit the hub cannot take (503 HUB_DB_UNREACHABLE) is queued and
// retried in the background; a retry refused for a reason retrying cannot fix (403) stops
// retrying and shows that error; Cancel forgets it; a library with no sign-in gets the Team
// page's fix. The real hub round trip is tests/hub/team-app-offline.test.ts.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../../src/services/create-services';
import { openLibrary, type Library } from '../../../src/services/library/library';
import { deleteCredentials, saveCredentials } from '../../../src/services/team';
import type { ApiMethods } from '../../../src/shared/contract';
import { copyExampleLibrary } from '../../helpers/example-library';
import { until } from '../../helpers/wait';

/** What the scripted hub answers to submissions:plan-upload. */
let answer: { status: number; code: string; fix?: string } = {
  status: 503,
  code: 'HUB_DB_UNREACHABLE',
  fix: 'Your work stays in your library: try again later.',
};
let plans = 0;
let hub: http.Server;
let root: string;
let lib: Library;
let services: Services;
let id = '';

async function call<M extends keyof ApiMethods>(method: M, payload: ApiMethods[M]['input']) {
  const r = await services.dispatch(method, payload);
  return r as
    | { ok: true; value: ApiMethods[M]['output'] }
    | { ok: false; error: { code: string; message: string; fix?: string } };
}

async function value<M extends keyof ApiMethods>(method: M, payload: ApiMethods[M]['input']) {
  const r = await call(method, payload);
  if (!r.ok) {
    throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  }
  return r.value;
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'team-service-'));
  hub = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/api/submissions:plan-upload') {
      plans += 1;
    }
    const body = {
      ok: false,
      error: { code: answer.code, message: `scripted ${answer.code}`, fix: answer.fix },
    };
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
  const dir = path.join(root, 'library');
  id = await copyExampleLibrary(dir);
  await saveCredentials(dir, {
    url: `http://127.0.0.1:${(hub.address() as AddressInfo).port}`,
    user: 'ann',
    tokenId: 1,
    token: 'cuah_scripted',
    createdAtMs: 1,
  });
  lib = openLibrary(dir);
  services = createServices(lib, {
    appVersion: '0.0.0-test',
    team: { retry: { firstDelayMs: 100, maxDelayMs: 200 } },
  });
}, 120_000);

afterAll(async () => {
  await services?.close();
  lib?.close();
  hub?.closeAllConnections();
  await new Promise((r) => hub?.close(r));
  fs.rmSync(root, { recursive: true, force: true });
});

describe('team service: pending submits', () => {
  it('queues a submit the hub cannot take, retries it, and stops on a refusal retrying cannot fix', async () => {
    const { submissions } = await value('team:submit', { ids: [id] });
    expect(submissions).toEqual([
      {
        recording: id,
        state: 'queued',
        submission: null,
        version: null,
        status: null,
        error: {
          code: 'HUB_DB_UNREACHABLE',
          message: `scripted HUB_DB_UNREACHABLE`,
          fix: 'Your work stays in your library: try again later.',
        },
      },
    ]);
    // retried in the background, with growing attempts
    await until(() => plans >= 3, 'two background retries', 15_000);
    // the hub now refuses for another reason: the next retry marks it failed and stops
    answer = { status: 403, code: 'FORBIDDEN', fix: 'Ask an admin for the annotator role.' };
    const seen = plans;
    await until(() => plans > seen, 'one more retry', 15_000);
    const status = await value('team:status', {});
    await until(
      () =>
        JSON.parse(fs.readFileSync(lib.resolve('uploads/hub-pending.json'), 'utf8')).entries[0]
          .state === 'failed',
      'the entry marked failed',
      5_000,
    );
    const { pending } = await value('team:submissions', {});
    expect(pending).toMatchObject([
      {
        recording: id,
        state: 'failed',
        nextAttemptAtMs: null,
        lastError: { code: 'FORBIDDEN', fix: 'Ask an admin for the annotator role.' },
      },
    ]);
    expect(pending[0]!.attempts).toBeGreaterThanOrEqual(4);
    expect(status.signedIn).toBe(true);
    // no more retries once failed
    const after = plans;
    await new Promise((r) => setTimeout(r, 600));
    expect(plans).toBe(after);
  }, 60_000);

  it('Cancel forgets it; with no sign-in, submit answers HUB_NOT_SIGNED_IN with the Team page fix', async () => {
    expect((await value('team:cancel-pending', { id })).pending).toEqual([]);
    expect(fs.existsSync(lib.resolve('uploads/hub-pending.json'))).toBe(false);
    await deleteCredentials(lib.dir);
    const r = await call('team:submit', { ids: [id] });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'HUB_NOT_SIGNED_IN', fix: expect.stringMatching(/Team page/) as unknown },
    });
    const status = await value('team:status', {});
    expect(status).toMatchObject({ signedIn: false, pending: [], hub: { error: null } });
    // an unknown recording is NOT_FOUND, as everywhere in the contract
    expect(await call('team:submit', { ids: ['no-such-recording'] })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
  });
});
