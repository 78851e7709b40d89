// The hub's Tasks page end to end (docs/team-mode.md §16): Debian's Chromium (playwright-core)
// against a real embedded hub (`cua-annotator hub --data TMP` as a process; an admin and an
// annotator made with `hub user add` before it starts). The admin imports a .jsonl file with a bad
// line: the preview names the line and nothing is written until "Import", which adds the good
// ones. The annotator sees the open tasks of their platform (and those for any), claims one (the
// row shows them as its holder), reports another as impossible with a reason; the admin closes and
// reopens one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieOf, request } from '../hub/http/hub-fixture';
import { addHubUser, startHubProcess, type HubProcess } from '../hub/hub-process';
import { launchChromium } from './chromium';
import { rendererHolding } from './serve';

const PASSWORD = { boss: 'boss has a long password', alice: 'alice has a long password' };

let work: string;
let builtRenderer: string | null = null;
let hub: HubProcess | null = null;
let browser: Browser;
const contexts: BrowserContext[] = [];
const oneTime: Record<string, string> = {};
let admin: Page;
let annotator: Page;

// the task file: line 3 is not a task (no instruction)
const TASKS_FILE = [
  { instruction: 'Rename report.txt to final.txt in Files', platform: 'ubuntu', app: 'Files' },
  { instruction: 'Add a calendar event in Calendar.app', platform: 'mac' },
  { description: 'a line with no instruction', platform: 'ubuntu' },
  { instruction: 'Set the desktop background to blue', platform: 'ubuntu' },
  { instruction: 'Search the web for the weather in Paris', platform: 'any', url: 'https://x.org' },
]
  .map((t) => JSON.stringify(t))
  .join('\n');

async function signInFirstTime(page: Page, user: 'boss' | 'alice'): Promise<void> {
  await page.getByTestId('hub-signin').waitFor();
  await page.getByLabel('Name').fill(user);
  await page.getByLabel('Password', { exact: true }).fill(oneTime[user]!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('hub-change-password').waitFor();
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD[user]);
  await page.getByLabel('New password again').fill(PASSWORD[user]);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByTestId('hub-me').filter({ hasText: '·' }).waitFor();
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${hub!.url}/`);
  return page;
}

const row = (page: Page, instruction: string): Locator =>
  page.locator('tr[data-testid^="task-"]', { hasText: instruction });

const text = async (l: Locator) => ((await l.textContent()) ?? '').trim();

/** The instructions of the rows the page lists. */
async function listed(page: Page): Promise<string[]> {
  await page.getByTestId('hub-tasks-count').filter({ hasNotText: 'Loading' }).waitFor();
  const rows = page.locator('tr[data-testid^="task-"] td:nth-child(2) > div:first-child');
  return (await rows.allTextContents()).map((t) => t.trim()).sort();
}

beforeAll(async () => {
  // a build holding this page's newest feature (out/renderer may be older)
  builtRenderer = await rendererHolding('task-infeasible-reason');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-tasks-e2e-'));
  const data = path.join(work, 'hub');
  // one at a time: two `hub user add` on one folder collide
  oneTime.boss = await addHubUser('boss', ['admin'], ['--data', data]);
  oneTime.alice = await addHubUser('alice', ['annotator'], ['--data', data]);
  hub = await startHubProcess([
    ...['--data', data],
    ...(builtRenderer ? ['--renderer', builtRenderer] : []),
  ]);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  for (const c of contexts) {
    await c.close();
  }
  await browser?.close();
  await hub?.stop('SIGTERM');
  fs.rmSync(work, { recursive: true, force: true });
  if (builtRenderer) {
    fs.rmSync(builtRenderer, { recursive: true, force: true });
  }
});

describe('the hub’s Tasks page (Chromium + cua-annotator hub --data)', () => {
  it('the admin previews a task file with a bad line (nothing written), then imports the good ones', async () => {
    admin = await newPage();
    await signInFirstTime(admin, 'boss');
    await admin.getByTestId('hub-nav-tasks').click();
    await admin.getByTestId('hub-tasks').waitFor();
    expect(await listed(admin)).toEqual([]);

    await admin.getByTestId('tasks-import-file').setInputFiles({
      name: 'tasks.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(TASKS_FILE),
    });
    await admin.getByTestId('tasks-import-preview').waitFor();
    expect(await text(admin.getByTestId('tasks-preview-added'))).toBe('4');
    expect(await text(admin.getByTestId('tasks-preview-errors'))).toBe('1');
    expect(await text(admin.getByTestId('tasks-preview-line-3'))).toMatch(/^3\s*\S*instruction/i);
    // nothing written by the preview: the list, read again, is still empty
    await admin.getByRole('button', { name: 'Refresh' }).click();
    expect(await listed(admin)).toEqual([]);

    await admin.getByTestId('tasks-import-confirm').click();
    await admin.getByTestId('tasks-import-done').waitFor();
    expect(await text(admin.getByTestId('tasks-import-done'))).toContain('Added 4 task(s)');
    await admin.getByTestId('hub-tasks-count').filter({ hasText: '4 tasks' }).waitFor();
    expect(await listed(admin)).toEqual([
      'Add a calendar event in Calendar.app',
      'Rename report.txt to final.txt in Files',
      'Search the web for the weather in Paris',
      'Set the desktop background to blue',
    ]);
  });

  it('the annotator sees the open tasks of their platform, claims one and reports another', async () => {
    annotator = await newPage();
    await signInFirstTime(annotator, 'alice');
    // an annotator only: no Team page, Tasks in the nav
    expect(await annotator.getByTestId('hub-nav-team').count()).toBe(0);
    await annotator.getByTestId('hub-nav-tasks').click();
    await annotator.getByTestId('hub-tasks').waitFor();
    // Chromium on Linux: the page picks ubuntu; tasks for any platform are listed too
    expect(await annotator.getByTestId('tasks-platform').inputValue()).toBe('ubuntu');
    expect(await listed(annotator)).toEqual([
      'Rename report.txt to final.txt in Files',
      'Search the web for the weather in Paris',
      'Set the desktop background to blue',
    ]);
    // annotators do not import
    expect(await annotator.getByTestId('tasks-import').count()).toBe(0);

    const rename = row(annotator, 'Rename report.txt');
    await rename.getByTestId('task-claim').click();
    await annotator.getByTestId('hub-tasks-note').filter({ hasText: 'is yours until' }).waitFor();
    await rename.getByTestId('task-claimed-by').filter({ hasText: 'alice' }).waitFor();
    expect(await rename.getByTestId('task-claim').count()).toBe(0);
    expect(await rename.getByTestId('task-release').count()).toBe(1);

    const background = row(annotator, 'desktop background');
    await background.getByTestId('task-infeasible').click();
    // an empty reason cannot be sent
    expect(await background.getByTestId('task-infeasible-send').isDisabled()).toBe(true);
    await background.getByTestId('task-infeasible-reason').fill('The VM has no display settings');
    await background.getByTestId('task-infeasible-send').click();
    await annotator.getByTestId('hub-tasks-note').filter({ hasText: 'Reported' }).waitFor();

    // the hub holds the claim and the report (read as the admin, outside the page)
    const login = await request(
      hub!.url,
      'auth:login',
      { user: 'boss', password: PASSWORD.boss },
      { origin: hub!.url },
    );
    const call = (method: string, body: unknown) =>
      request(hub!.url, method, body, { cookie: cookieOf(login), origin: hub!.url });
    const all = (await call('tasks:list', { status: 'all' })).body.value as {
      tasks: { id: number; instruction: string; claimedBy: string[] }[];
    };
    const byText = (s: string) => all.tasks.find((t) => t.instruction.includes(s))!;
    expect(byText('Rename').claimedBy).toEqual(['alice']);
    const shown = (await call('tasks:get', { id: byText('background').id })).body.value as {
      reports: { user: string; reason: string }[];
    };
    expect(shown.reports).toMatchObject([
      { user: 'alice', reason: 'The VM has no display settings' },
    ]);
  });

  it('the admin closes a task and reopens it; a closed task leaves the annotator’s list', async () => {
    await admin.getByRole('button', { name: 'Refresh' }).click();
    const rename = row(admin, 'Rename report.txt');
    await rename.getByTestId('task-claimed-by').filter({ hasText: 'alice' }).waitFor();
    const weather = row(admin, 'weather in Paris');
    await weather.getByTestId('task-close').click();
    await weather.getByTestId('task-status').filter({ hasText: 'closed' }).waitFor();

    await annotator.getByRole('button', { name: 'Refresh' }).click();
    await annotator.getByTestId('hub-tasks-count').filter({ hasText: '2 tasks' }).waitFor();
    expect(await listed(annotator)).not.toContain('Search the web for the weather in Paris');

    await weather.getByTestId('task-reopen').click();
    await weather.getByTestId('task-status').filter({ hasText: 'open' }).waitFor();
    await annotator.getByRole('button', { name: 'Refresh' }).click();
    await annotator.getByTestId('hub-tasks-count').filter({ hasText: '3 tasks' }).waitFor();
  });
});
