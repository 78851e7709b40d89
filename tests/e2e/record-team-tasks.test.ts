// The Record page's "Team tasks" panel in Chromium (issue 28 item 2, docs/team-mode.md §16):
// `cua-annotator serve` on a library signed in (through the local contract) to a real embedded
// hub (`hub --data`), whose admin imported tasks. Signed out, the panel is absent; signed in, it
// lists the open tasks of this OS; "Record this" claims one, puts its instruction in the Task
// field and names the task the next recording is for; "Not for a task" drops it. (Starting the
// recording with the id: tests/services/recording/recorder-service.test.ts; the claim on the hub:
// tests/hub/team-tasks-app.test.ts.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../../src/services/create-services';
import { openLibrary } from '../../src/services/library/library';
import { callHubTasks } from '../../src/services/team/tasks';
import { addHubUser, startHubProcess, type HubProcess } from '../hub/hub-process';
import { launchChromium } from './chromium';
import { callApi, rendererHolding, startServer, stop, type Served } from './serve';

const NEW_PASSWORD = 'a long new password 42';

let root: string;
let built: string | null = null;
let hub: HubProcess | null = null;
let browser: Browser | null = null;
let served: Served | null = null;
let page: Page;
let darkId = 0;

beforeAll(async () => {
  built = await rendererHolding('team-task-record');
  if (built) {
    process.env.CUA_E2E_RENDERER = built; // read by startServer (own worker)
  }
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'record-team-tasks-e2e-'));
  const data = path.join(root, 'hub-data');
  // one at a time: two `hub user add` on one folder collide
  const bossOtp = await addHubUser('boss', ['admin'], ['--data', data]);
  const annOtp = await addHubUser('ann', ['annotator'], ['--data', data]);
  hub = await startHubProcess(['--data', data]);

  // the admin imports the tasks (from their own library's sign-in)
  const bossDir = path.join(root, 'library-boss');
  const bossLib = openLibrary(bossDir);
  const bossServices = createServices(bossLib, { appVersion: '0.0.0-test', emit: () => {} });
  const signed = await bossServices.dispatch('team:change-password', {
    url: hub.url,
    user: 'boss',
    password: bossOtp,
    newPassword: NEW_PASSWORD,
  });
  expect(signed.ok).toBe(true);
  const imported = await callHubTasks(bossLib, 'tasks:import', {
    text: [
      { instruction: 'Turn on dark mode in the settings', platform: 'ubuntu' },
      { instruction: 'Add a calendar event', platform: 'mac' },
      { instruction: 'Find the weather in Paris', platform: 'any' },
    ]
      .map((t) => JSON.stringify(t))
      .join('\n'),
    format: 'jsonl',
    dryRun: false,
  });
  darkId = imported.ids[0]!;
  await bossServices.close();
  bossLib.close();

  const annDir = path.join(root, 'library-ann');
  fs.mkdirSync(annDir);
  openLibrary(annDir).close();
  served = await startServer(annDir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(served.url); // the token
  // the page is signed out of the team at first
  await page.goto(`${served.origin}/#/record`);
  await page.getByTestId('record-page').waitFor();
  const otp = { ann: annOtp };
  const annSigned = await callApi(served, 'team:change-password', {
    url: hub.url,
    user: 'ann',
    password: otp.ann,
    newPassword: NEW_PASSWORD,
  });
  expect(annSigned.ok, JSON.stringify(annSigned.error)).toBe(true);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stop(served?.child);
  await hub?.stop('SIGTERM');
  fs.rmSync(root, { recursive: true, force: true });
  if (built) {
    fs.rmSync(built, { recursive: true, force: true });
  }
});

describe('Record page: Team tasks (serve + hub --data + Chromium)', () => {
  it('lists this OS’s open tasks once signed in; "Record this" claims one and fills the task', async () => {
    // loaded while signed out: no panel
    expect(await page.getByTestId('team-tasks').count()).toBe(0);
    // signed in meanwhile (through the contract): a fresh load of the page shows the panel
    await page.reload();
    await page.getByTestId('team-tasks').waitFor();
    const row = page.getByTestId(`team-task-${darkId}`);
    await row.waitFor();
    const listed = (await page.locator('[data-testid^="team-task-"] ').allTextContents()).join();
    expect(listed).toContain('Find the weather in Paris');
    expect(listed).not.toContain('Add a calendar event');

    await row.getByTestId('team-task-record').click();
    await page
      .getByTestId('team-task-chosen')
      .filter({ hasText: `task ${darkId}` })
      .waitFor();
    expect(await page.getByTestId('record-task').inputValue()).toBe(
      'Turn on dark mode in the settings',
    );
    // the hub holds the claim for ann
    await row.filter({ hasText: 'claimed by ann' }).waitFor();
    const tasks = await callApi(served!, 'team:tasks', {});
    const dark = (
      tasks.value as { tasks: { id: number; myClaimExpiresAtMs: number | null }[] }
    ).tasks.find((t) => t.id === darkId);
    expect(dark?.myClaimExpiresAtMs).toBeGreaterThan(Date.now());

    await page.getByRole('button', { name: 'Not for a task' }).click();
    expect(await page.getByTestId('team-task-chosen').count()).toBe(0);
    expect(await page.getByTestId('record-start').isEnabled()).toBe(true);
  });
});
