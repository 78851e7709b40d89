// The admin Dashboard end to end (docs/team-mode.md §18): 200 synthetic submissions are written
// to an embedded hub's folder, `cua-annotator hub --data` runs as a process, and Debian's
// Chromium (playwright-core) signs in as the admin, opens Dashboard from the nav, sees the
// accepted count and mean steps of the SQL (hubStats on the same folder before the start),
// charts drawn as SVG by vega-embed, then picks OS = Linux and sees the numbers change to the
// Linux figures; a CSV link downloads the table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubStats, openHubDb } from '../../src/hub/db';
import type { HubStats } from '../../src/shared/contract/hub-stats';
import { addHubUser, startHubProcess, type HubProcess } from '../hub/hub-process';
import { load, synthesize } from '../hub/stats/synthetic';
import { launchChromium } from './chromium';
import { rendererHolding } from './serve';

let work: string;
let builtRenderer: string | null = null;
let hub: HubProcess | null = null;
let browser: Browser;
let all: HubStats;
let linux: HubStats;
let oneTime = '';

beforeAll(async () => {
  builtRenderer = await rendererHolding('hub-dashboard');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-dashboard-e2e-'));
  const data = path.join(work, 'hub');
  const db = await openHubDb({ data });
  try {
    await load(db.db, synthesize(200), '');
    all = await hubStats(db.db);
    linux = await hubStats(db.db, { os: 'linux' });
  } finally {
    await db.close();
  }
  oneTime = await addHubUser('boss', ['admin'], ['--data', data]);
  hub = await startHubProcess([
    ...['--data', data],
    ...(builtRenderer ? ['--renderer', builtRenderer] : []),
  ]);
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (hub) {
    await hub.stop('SIGTERM');
  }
  fs.rmSync(work, { recursive: true, force: true });
  if (builtRenderer) {
    fs.rmSync(builtRenderer, { recursive: true, force: true });
  }
});

describe('the Dashboard page (Chromium + cua-annotator hub --data)', () => {
  it('shows the SQL’s figures, and other numbers once the OS filter changes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${hub!.url}/`);
    await page.getByLabel('Name').fill('boss');
    await page.getByLabel('Password', { exact: true }).fill(oneTime);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('hub-change-password').waitFor();
    await page.getByLabel('New password', { exact: true }).fill('boss has a long password');
    await page.getByLabel('New password again').fill('boss has a long password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByTestId('hub-nav-dashboard').click();
    await page.getByTestId('hub-dashboard').waitFor();
    const accepted = page.getByTestId('hub-dash-accepted');
    await accepted.waitFor();
    expect(await accepted.textContent()).toBe(String(all.accepted.total));
    expect(await page.getByTestId('hub-dash-mean-steps').textContent()).toBe(
      all.steps.mean!.toFixed(1),
    );
    // vega-embed drew the OS chart as SVG with a bar per OS
    const osFigure = page.getByTestId('hub-fig-accepted-by-os');
    await osFigure.locator('svg .mark-rect path').first().waitFor();
    expect(await osFigure.locator('svg .mark-rect path').count()).toBe(
      Object.keys(all.accepted.byOs).length,
    );
    // the table is there for screen readers and copying
    expect(await osFigure.getByRole('table').locator('tbody tr').count()).toBe(
      Object.keys(all.accepted.byOs).length,
    );
    // a filter: Linux only
    await page.getByTestId('hub-dash-os').selectOption('linux');
    await page
      .getByTestId('hub-dash-accepted')
      .filter({ hasText: new RegExp(`^${linux.accepted.total}$`) })
      .waitFor();
    expect(linux.accepted.total).not.toBe(all.accepted.total);
    expect(await page.getByTestId('hub-dash-mean-steps').textContent()).toBe(
      linux.steps.mean!.toFixed(1),
    );
    await osFigure.locator('svg .mark-rect path').nth(0).waitFor();
    await expect.poll(() => osFigure.locator('svg .mark-rect path').count()).toBe(1);
    // the CSV link holds the table
    const href = await osFigure.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    expect(decodeURIComponent(href!.split(',').slice(1).join(','))).toBe(
      `os,count\r\nlinux,${linux.accepted.total}\r\n`,
    );
    await context.close();
  }, 180_000);
});
