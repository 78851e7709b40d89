// End to end (issue 27, the app's team pages): Debian Chromium (playwright-core) against two
// `cua-annotator serve` children — an annotator's library holding the imported example and a
// reviewer's empty one — and a real embedded hub (`hub --data DIR`, accounts from `hub user add`).
// The annotator signs in on the Team page (the one-time password changed there), submits the
// recording from its page and sees it in My submissions; the reviewer signs in, takes it with
// "Take the next one" (it lands in their library and opens in the review page) and asks for
// changes with feedback; the annotator sees "changes asked", the feedback, the reviewer, and a
// Resubmit, fixes a step and resubmits (version 2); the Library's "Submit selected to team" works
// on a selection; with the hub stopped a submit waits ("waiting for the hub — retrying") and
// serve's background retry sends it once the hub is back (version 3). Assertions are on visible
// text.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleLibrary } from '../helpers/example-library';
import { addHubUser, startHubProcess, type HubProcess } from '../hub/hub-process';
import { openLibrary } from '../../src/services/library/library';
import { launchChromium } from './chromium';
import { callApi, rendererHolding, startServer, stop, type Served } from './serve';

const FEEDBACK = 'Step 3 clicks the wrong field: please fix it and resubmit.';

describe('the Team page end to end (Chromium + serve + an embedded hub)', () => {
  let root = '';
  let hub: HubProcess | null = null;
  let dataDir = '';
  let built: string | null = null;
  let browser: Browser | null = null;
  const servers: ChildProcess[] = [];
  let recordingId = '';
  let annotator: { served: Served; page: Page };
  let reviewer: { served: Served; page: Page };
  const otp: Record<string, string> = {};

  async function open(libraryDir: string): Promise<{ served: Served; page: Page }> {
    const served = await startServer(libraryDir);
    servers.push(served.child);
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(served.url); // the token
    return { served, page };
  }

  // The Team page's sign-in with a one-time password, then the new password.
  async function signIn(page: Page, origin: string, user: string): Promise<void> {
    await page.goto(`${origin}/#/team`);
    await page.getByTestId('team-url').fill(hub!.url);
    await page.getByTestId('team-user').fill(user);
    await page.getByTestId('team-password').fill(otp[user]!);
    await page.getByTestId('team-sign-in').click();
    await page.getByText('signed in with a one-time password').waitFor();
    await page.getByTestId('team-new-password').fill('a long new password 42');
    await page.getByTestId('team-new-password-repeat').fill('a long new password 42');
    await page.getByTestId('team-change-password').click();
    await page.getByTestId('team-who').filter({ hasText: user }).waitFor({ timeout: 30_000 });
  }

  beforeAll(async () => {
    built = await rendererHolding('team-take-next');
    if (built) {
      process.env.CUA_E2E_RENDERER = built; // read by startServer (own worker)
    }
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-team-e2e-'));
    dataDir = path.join(root, 'hub-data');
    const annDir = path.join(root, 'library-ann');
    const revDir = path.join(root, 'library-rev');
    fs.mkdirSync(revDir);
    openLibrary(revDir).close();
    // one `hub user add` at a time: each holds the embedded data folder while it runs
    const example = copyExampleLibrary(annDir);
    otp.ann = await addHubUser('ann', ['annotator'], ['--data', dataDir]);
    otp.rev = await addHubUser('rev', ['reviewer'], ['--data', dataDir]);
    recordingId = await example;
    hub = await startHubProcess(['--data', dataDir]);
    browser = await launchChromium();
    [annotator, reviewer] = await Promise.all([open(annDir), open(revDir)]);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map((s) => stop(s)));
    if (hub) {
      await hub.stop();
    }
    fs.rmSync(root, { recursive: true, force: true });
    if (built) {
      fs.rmSync(built, { recursive: true, force: true });
    }
  });

  it('the annotator signs in (one-time password changed), submits the recording and sees it in My submissions', async () => {
    const { page, served } = annotator;
    await page.goto(`${served.origin}/#/team`);
    await page.getByText('Sign in to a team').first().waitFor();
    await signIn(page, served.origin, 'ann');
    expect(await page.getByTestId('team-account').textContent()).toContain(hub!.url);
    expect(await page.getByTestId('team-account').textContent()).toContain(
      'a file readable by you only',
    );
    await page.goto(`${served.origin}/#/recording/${encodeURIComponent(recordingId)}`);
    await page.getByTestId('team-submit').click();
    await page
      .getByTestId('team-submit-state')
      .filter({ hasText: 'Submitted (version 1)' })
      .waitFor({ timeout: 60_000 });
    await page.goto(`${served.origin}/#/team`);
    const row = page.getByTestId(`team-submission-${recordingId}`);
    await row.waitFor();
    const status = row.getByTestId('team-submission-status');
    // the hub checks a new version first (its intake job), then queues it for review
    expect(['being checked by the hub', 'waiting for review']).toContain(
      await status.textContent(),
    );
    const deadline = Date.now() + 60_000;
    while ((await status.textContent()) !== 'waiting for review' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      await page.getByTestId('team-submissions').getByRole('button', { name: 'Refresh' }).click();
    }
    expect(await status.textContent()).toBe('waiting for review');
  });

  it('the reviewer takes it from the queue into their library and asks for changes with feedback', async () => {
    const { page, served } = reviewer;
    await signIn(page, served.origin, 'rev');
    await page.getByTestId('team-take-next').click();
    // the recording is now in the reviewer's library, open in the review page
    await page.waitForURL(`**/#/recording/${encodeURIComponent(recordingId)}`, {
      timeout: 60_000,
    });
    const panel = page.getByTestId('team-review-panel');
    await panel.waitFor({ timeout: 30_000 });
    expect(await panel.textContent()).toContain('version 1, by ann');
    await page.getByTestId('step-card').first().waitFor();
    await page.getByTestId('team-verdict-changes').check();
    await page.getByTestId('team-grade').selectOption('ok');
    await page.getByTestId('team-feedback').fill(FEEDBACK);
    await page.getByTestId('team-send-verdict').click();
    const sent = page.getByTestId('team-verdict-sent');
    await sent.waitFor({ timeout: 30_000 });
    expect(await sent.textContent()).toContain('Verdict sent: changes (submission 1, version 1');
    // nothing else waits
    await page.goto(`${served.origin}/#/team`);
    await page.getByTestId('team-take-next').click();
    await page.getByText('Nothing waits for review.').waitFor();
  });

  it('the annotator sees the verdict: changes asked, the grade, the reviewer, the feedback, Resubmit', async () => {
    const { page } = annotator;
    await page.getByTestId('team-submissions').getByRole('button', { name: 'Refresh' }).click();
    const row = page.getByTestId(`team-submission-${recordingId}`);
    await row.getByTestId('team-submission-status').filter({ hasText: 'changes asked' }).waitFor();
    const text = await row.textContent();
    expect(text).toContain(FEEDBACK);
    expect(text).toContain('rev');
    expect(text).toContain('ok');
    expect(await row.getByTestId('team-resubmit').isVisible()).toBe(true);
    expect(await row.getByRole('link', { name: 'Fix' }).getAttribute('href')).toBe(
      `#/recording/${encodeURIComponent(recordingId)}`,
    );

    // the annotator fixes a step (an edit through the page's API) and resubmits: version 2
    const fixed = await callApi(annotator.served, 'edits:apply', {
      id: recordingId,
      edit: { op: 'relabel', stepId: 'agentnet:3', label: 'Click the "Go to settings" field' },
    });
    expect(fixed.ok, JSON.stringify(fixed.error)).toBe(true);
    await row.getByTestId('team-resubmit').click();
    await row
      .getByTestId('team-submission-version')
      .filter({ hasText: '2' })
      .waitFor({ timeout: 60_000 });
    expect(['being checked by the hub', 'waiting for review']).toContain(
      await row.getByTestId('team-submission-status').textContent(),
    );
    // the Library submits a selection too (unchanged, the hub answers the same version)
    await page.goto(`${annotator.served.origin}/#/`);
    await page.locator(`[data-testid=library-row][data-id="${recordingId}"] input`).click();
    await page.getByTestId('team-submit-selected').click();
    await page
      .getByTestId('team-submit-selected-state')
      .filter({ hasText: '1 submitted' })
      .waitFor({ timeout: 60_000 });
  });

  it('the hub goes away: a submit waits ("waiting for the hub — retrying", with the fix) and goes through by itself once the hub is back', async () => {
    const { page, served } = annotator;
    // another fix: the next submit is a new version
    const fixed = await callApi(served, 'edits:apply', {
      id: recordingId,
      edit: { op: 'relabel', stepId: 'agentnet:4', label: 'Drag the brightness slider to 78' },
    });
    expect(fixed.ok, JSON.stringify(fixed.error)).toBe(true);
    const port = hub!.port;
    await hub!.stop('SIGKILL');
    await page.goto(`${served.origin}/#/recording/${encodeURIComponent(recordingId)}`);
    await page.getByTestId('team-submit').click();
    await page
      .getByTestId('team-submit-state')
      .filter({ hasText: 'waiting for the hub — retrying' })
      .waitFor({ timeout: 60_000 });
    await page.goto(`${served.origin}/#/team`);
    const pending = page.getByTestId(`team-pending-${recordingId}`);
    await pending.waitFor();
    expect(await pending.textContent()).toContain('waiting for the hub — retrying');
    expect(await pending.textContent()).toContain('Check the address and that the hub runs');
    expect(await page.getByTestId('team-hub-error').textContent()).toContain('HUB_UNREACHABLE');
    // the library keeps working meanwhile
    expect((await callApi(served, 'recordings:list', {})).ok).toBe(true);
    // the hub back on its address: serve's background retry sends it, the page updates itself
    hub = await startHubProcess(['--data', dataDir], { port });
    await pending.waitFor({ state: 'detached', timeout: 90_000 });
    const row = page.getByTestId(`team-submission-${recordingId}`);
    await row.getByTestId('team-submission-version').filter({ hasText: '3' }).waitFor();
  });
}, 300_000);
