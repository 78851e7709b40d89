// The Record page's "Team tasks" (issue 28 item 2, docs/team-mode.md §16) through the local
// contract the app and serve use (`team:tasks`, `team:claim-task` of createServices) against a
// real hub process (`hub --data DIR`): not signed in → the Team page's fix, not a throw; signed
// in → the open tasks of this OS and those for any (not another OS's); a claim answers the
// instruction and shows as the caller's; a task another annotator holds is refused with a fix;
// the hub stopped → the list answers the hub's error, not a throw. (recorder:start's teamTaskId
// into the recording: tests/services/recording/recorder-service.test.ts.)
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../src/services/create-services';
import { openLibrary, type Library } from '../../src/services/library/library';
import { callHubTasks, hostTaskPlatform } from '../../src/services/team/tasks';
import type { ApiMethods } from '../../src/shared/contract';
import { addHubUser, startHubProcess, type HubProcess } from './hub-process';

const NEW_PASSWORD = 'a long new password 42';
const NAMES = ['boss', 'ann', 'bob'] as const;
type Name = (typeof NAMES)[number];

let root: string;
let hub: HubProcess | null = null;
const libs = {} as Record<Name, Library>;
const services = {} as Record<Name, Services>;
const oneTime = {} as Record<Name, string>;
const ids: Record<string, number> = {};

async function call<M extends keyof ApiMethods>(
  who: Name,
  method: M,
  payload: ApiMethods[M]['input'],
): Promise<ApiMethods[M]['output']> {
  const result = await services[who].dispatch(method, payload);
  if (!result.ok) {
    throw Object.assign(new Error(`${method}: ${result.error.code} ${result.error.message}`), {
      error: result.error,
    });
  }
  return result.value as ApiMethods[M]['output'];
}

async function signIn(who: Name): Promise<void> {
  const signedIn = await call(who, 'team:change-password', {
    url: hub!.url,
    user: who,
    password: oneTime[who],
    newPassword: NEW_PASSWORD,
  });
  expect(signedIn).toMatchObject({ mustChangePassword: false, user: who });
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'team-tasks-app-'));
  const data = path.join(root, 'hub-data');
  // one at a time: two `hub user add` on one folder collide
  oneTime.boss = await addHubUser('boss', ['admin'], ['--data', data]);
  oneTime.ann = await addHubUser('ann', ['annotator'], ['--data', data]);
  oneTime.bob = await addHubUser('bob', ['annotator'], ['--data', data]);
  hub = await startHubProcess(['--data', data]);
  for (const name of NAMES) {
    libs[name] = openLibrary(path.join(root, `${name}-library`));
    services[name] = createServices(libs[name], { appVersion: '0.0.0-test', emit: () => {} });
  }
  await signIn('boss');
  const here = hostTaskPlatform();
  const other = here === 'mac' ? 'win' : 'mac';
  const tasks = [
    { instruction: 'Open the settings and turn on dark mode', platform: here },
    { instruction: 'Empty the trash', platform: here },
    { instruction: 'Find the weather in Paris', platform: 'any' },
    { instruction: 'Only on another OS', platform: other },
  ];
  const imported = await callHubTasks(libs.boss, 'tasks:import', {
    text: tasks.map((t) => JSON.stringify(t)).join('\n'),
    format: 'jsonl',
    dryRun: false,
  });
  expect(imported).toMatchObject({ added: 4, errors: [] });
  tasks.forEach((t, i) => (ids[t.instruction] = imported.ids[i]!));
}, 240_000);

afterAll(async () => {
  for (const name of NAMES) {
    await services[name]?.close();
    libs[name]?.close();
  }
  await hub?.stop('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

describe('team:tasks and team:claim-task against a hub process', () => {
  it('not signed in: the list answers the Team page’s fix (no throw)', async () => {
    const r = await call('ann', 'team:tasks', {});
    expect(r).toMatchObject({ platform: hostTaskPlatform(), tasks: [] });
    expect(r.hubError?.code).toBe('HUB_NOT_SIGNED_IN');
    expect(r.hubError?.fix).toMatch(/Team page/);
  });

  it('signed in: this OS’s open tasks and those for any; a claim gives the instruction and shows as mine; one held by another is refused', async () => {
    await signIn('ann');
    await signIn('bob');
    const listed = await call('ann', 'team:tasks', {});
    expect(listed.hubError).toBeNull();
    expect(listed.tasks.map((t) => t.instruction).sort()).toEqual([
      'Empty the trash',
      'Find the weather in Paris',
      'Open the settings and turn on dark mode',
    ]);

    const dark = ids['Open the settings and turn on dark mode']!;
    const claimed = await call('ann', 'team:claim-task', { id: dark });
    expect(claimed).toMatchObject({
      id: dark,
      instruction: 'Open the settings and turn on dark mode',
    });
    expect(claimed.expiresAtMs).toBeGreaterThan(Date.now());
    const after = await call('ann', 'team:tasks', {});
    const mine = after.tasks.find((t) => t.id === dark)!;
    expect(mine.claimedBy).toEqual(['ann']);
    expect(mine.myClaimExpiresAtMs).toBe(claimed.expiresAtMs);
    // claiming it again renews ann's own claim
    await expect(call('ann', 'team:claim-task', { id: dark })).resolves.toMatchObject({ id: dark });

    // one person per task by default: bob cannot take ann's
    const refused = await call('bob', 'team:claim-task', { id: dark }).catch(
      (e: { error: { code: string; message: string; fix?: string } }) => e.error,
    );
    expect(refused).toMatchObject({ code: 'INVALID_STATE' });
    expect((refused as { message: string }).message).toContain('held by ann');
    expect((refused as { fix?: string }).fix).toMatch(/another task/);
    // an unknown task
    const missing = await services.ann.dispatch('team:claim-task', { id: 999_999 });
    expect(!missing.ok && missing.error.code).toBe('NOT_FOUND');
  });

  it('the hub stopped: the list answers the hub’s error, not a throw', async () => {
    await hub!.stop('SIGKILL');
    hub = null;
    const r = await call('ann', 'team:tasks', {});
    expect(r.tasks).toEqual([]);
    expect(r.hubError?.code).toBe('HUB_UNREACHABLE');
  });
});
