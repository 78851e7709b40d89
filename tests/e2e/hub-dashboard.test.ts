// The admin Dashboard end to end (docs/team-mode.md §18): 200 synthetic submissions are written
// to an embedded hub's folder, `cua-annotator hub --data` runs as a process, and Debian's
// Chromium (playwright-core) signs in as the admin, opens Dashboard from the nav, sees the
// accepted count and mean steps of the SQL (hubStats on the same folder before the start),
// charts drawn as SVG by vega-embed, then picks OS = Linux and sees the numbers change to the
// Linux figures; a CSV link downloads the table. QA sampling (§19): one accepted submission's
// second review disagrees; the page shows the agreement rate and the disagreement with both
// reviewers, and the admin's Reject settles it (the row then reads rejected, from the hub); the
// share is changed on the page and read back after a reload.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubStats, insertUser, openHubDb, setUserRoles, type HubRootDb } from '../../src/hub/db';
import { writeQaSettings } from '../../src/hub/review/qa';
import { leaseNext, recordVerdict, registerVersion } from '../../src/hub/review/queue';
import type { HubRole } from '../../src/shared/contract/hub';
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
let qaId = 0;

async function person(db: HubRootDb, name: string, role: HubRole) {
  const id = await insertUser(db, { name, passwordHash: '$argon2id$test-not-a-hash' });
  await setUserRoles(db, id!, [role]);
  return { userId: id!, name, client: 'test' };
}

// one accepted submission drawn for QA (share 1), whose second reviewer rejects it
async function qaDisagreement(db: HubRootDb): Promise<number> {
  const [ann, first, second] = [
    await person(db, 'qa-ann', 'annotator'),
    await person(db, 'qa-rev-1', 'reviewer'),
    await person(db, 'qa-rev-2', 'reviewer'),
  ];
  await writeQaSettings(db, first, { sampleShare: 1 });
  const { submissionId } = await registerVersion(db, {
    annotator: ann,
    recordingId: 'rec-qa',
    task: 'a task checked twice',
    manifestSha256: 'b'.repeat(64),
    objectPrefix: 'subs/qa-ann/rec-qa/v1',
  });
  // the 200 synthetic submissions that wait come first in the queue: reviewed by nobody here
  await db
    .updateTable('submissions')
    .set({ status: 'changes', waiting_since: null })
    .where('status', '=', 'submitted')
    .where('id', '<>', submissionId)
    .execute();
  const lease = await leaseNext(db, first, 60_000);
  await recordVerdict(db, {
    reviewer: first,
    submissionId: lease!.submissionId,
    version: 1,
    verdict: 'accept',
  });
  const qa = await leaseNext(db, second, 60_000);
  await recordVerdict(db, {
    reviewer: second,
    submissionId: qa!.submissionId,
    version: 1,
    verdict: 'reject',
    feedback: 'never saves',
  });
  return submissionId;
}

beforeAll(async () => {
  builtRenderer = await rendererHolding('hub-qa-share-save');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-dashboard-e2e-'));
  const data = path.join(work, 'hub');
  const db = await openHubDb({ data });
  try {
    await load(db.db, synthesize(200), '');
    qaId = await qaDisagreement(db.db);
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
    // QA: one second review, which disagreed; Reject settles it
    expect(all.qa).toMatchObject({ sampled: 1, reviewed: 1, agreed: 0, unsettled: 1 });
    expect(await page.getByTestId('hub-dash-qa-agreement').textContent()).toBe('0.0%');
    const qaRow = page.getByTestId(`hub-qa-${qaId}`);
    expect(await qaRow.textContent()).toContain('accept by qa-rev-1');
    expect(await qaRow.textContent()).toContain('reject by qa-rev-2');
    expect(await qaRow.textContent()).toContain('never saves');
    await page.getByTestId(`hub-qa-reject-${qaId}`).click();
    await qaRow.filter({ hasText: /rejected$/ }).waitFor();
    expect(await page.getByTestId(`hub-qa-reject-${qaId}`).count()).toBe(0);
    // the share: 1 as set before the start; 0.25 saved, and read back from the hub on reload
    await page.getByTestId('hub-qa-share-current').filter({ hasText: 'now 1' }).waitFor();
    await page.getByTestId('hub-qa-share').fill('0.25');
    await page.getByTestId('hub-qa-share-save').click();
    await page.getByTestId('hub-qa-share-current').filter({ hasText: 'now 0.25' }).waitFor();
    await page.reload();
    await page.getByTestId('hub-nav-dashboard').click();
    await page.getByTestId('hub-qa-share-current').filter({ hasText: 'now 0.25' }).waitFor();
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
