// The hub's web pages end to end (docs/team-mode.md §15): Debian's Chromium (playwright-core)
// against a real embedded hub (`cua-annotator hub --data TMP` as a process, its first admin made
// with `hub user add`). The admin signs in with the one-time password and must change it, adds an
// annotator and a reviewer (each one-time password shown once), sees them and the audit rows,
// filters and pages the log, meets the last-admin guard, makes and revokes a token. The annotator
// signs in (forced change too), sees no Team nav, gets 403 calling users:list from the page, and
// sees their submission (the example recording, sent by the CLI's `submit` after `login`, as the
// round trip does; the hub's intake job checks it) with its status,
// then, after the reviewer's verdict, its grade and feedback, and their own counts by status
// with the acceptance rate (none before a final verdict). The reviewer's queue shows waiting,
// mine (with the lease's expiry) and done. A rate-limited sign-in shows its wait.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { copyExampleLibrary } from '../helpers/example-library';
import { testBundle } from '../helpers/hub-bundle';
import { cookieOf, request, type Reply } from '../hub/http/hub-fixture';
import { addHubUser, runCliWithInput, startHubProcess, type HubProcess } from '../hub/hub-process';
import { launchChromium } from './chromium';
import { rendererHolding } from './serve';

const NEW_PASSWORD = {
  boss: 'boss has a long password',
  alice: 'alice has a long password',
  rob: 'rob has a long password 1',
};

let work: string;
let builtRenderer: string | null = null;
let hub: HubProcess | null = null;
let browser: Browser;
const contexts: BrowserContext[] = [];
let admin: Page;
let annotator: Page;
let reviewer: Page;
const oneTime: Record<string, string> = {};
let aliceLibrary = '';
let recordingId = '';

/** A session of `user` made outside the browser (the CLI's and app's way is a token; a cookie
 * with the hub's Origin is as good for the test). */
async function apiSession(user: string, password: string) {
  const url = hub!.url;
  const login = await request(url, 'auth:login', { user, password }, { origin: url });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  const cookie = cookieOf(login);
  return (method: string, body: unknown = {}): Promise<Reply> =>
    request(url, method, body, { cookie, origin: url });
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${hub!.url}/`);
  return page;
}

async function signIn(page: Page, user: string, password: string): Promise<void> {
  await page.getByLabel('Name').fill(user);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function changePassword(page: Page, next: string): Promise<void> {
  await page.getByTestId('hub-change-password').waitFor();
  await page.getByLabel('New password', { exact: true }).fill(next);
  await page.getByLabel('New password again').fill(next);
  await page.getByRole('button', { name: 'Change password' }).click();
}

const text = async (page: Page, testId: string) =>
  (await page.getByTestId(testId).first().textContent())?.trim() ?? '';

beforeAll(async () => {
  // a build holding the newest of these pages' features (out/renderer may be older)
  builtRenderer = await rendererHolding('hub-jobs-dead-row');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-pages-e2e-'));
  const data = path.join(work, 'hub');
  aliceLibrary = path.join(work, 'alice-library');
  recordingId = await copyExampleLibrary(aliceLibrary, { keyframes: false });
  oneTime.boss = await addHubUser('boss', ['admin'], ['--data', data]);
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
  if (hub) {
    await hub.stop('SIGTERM');
  }
  fs.rmSync(work, { recursive: true, force: true });
  if (builtRenderer) {
    fs.rmSync(builtRenderer, { recursive: true, force: true });
  }
});

describe('the hub’s web pages (Chromium + cua-annotator hub --data)', () => {
  it('the admin signs in with the one-time password, must change it, adds an annotator and a reviewer, and sees them and the audit rows', async () => {
    admin = await newPage();
    await admin.getByTestId('hub-signin').waitFor();
    // a wrong password: the hub's error with its code
    await signIn(admin, 'boss', 'not the password');
    await admin.getByTestId('hub-signin-error').waitFor();
    expect(await text(admin, 'hub-signin-error-code')).toBe('UNAUTHORIZED');

    await signIn(admin, 'boss', oneTime.boss!);
    // the one-time password opens only its change
    expect(await admin.getByTestId('hub-nav-team').count()).toBe(0);
    await changePassword(admin, 'short');
    await admin.getByTestId('hub-password-error').waitFor();
    expect(await text(admin, 'hub-password-error-message')).toContain('too short');
    await changePassword(admin, NEW_PASSWORD.boss);
    await admin.getByTestId('hub-team').waitFor();
    expect(await text(admin, 'hub-me')).toBe('boss · admin');
    expect(await admin.getByTestId('hub-nav-team').getAttribute('aria-current')).toBe('page');
    // admin only: no annotator or reviewer pages
    expect(await admin.getByTestId('hub-nav-submissions').count()).toBe(0);
    expect(await admin.getByTestId('hub-nav-review').count()).toBe(0);

    // add alice (annotator) and rob (reviewer): each one-time password shown once
    for (const [name, role] of [
      ['alice', 'annotator'],
      ['rob', 'reviewer'],
    ] as const) {
      await admin.getByTestId('hub-add-name').fill(name);
      for (const r of ['annotator', 'reviewer', 'admin']) {
        await admin.getByTestId(`hub-add-role-${r}`).setChecked(r === role);
      }
      await admin.getByTestId('hub-add-submit').click();
      await admin.getByTestId(`hub-person-${name}`).waitFor();
      const secret = await text(admin, 'hub-secret-value');
      expect(secret).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){5}$/);
      oneTime[name] = secret;
      expect(await text(admin, 'hub-team-notice')).toBe(`${name} added (${role}).`);
      await admin.getByRole('button', { name: 'Done, hide it' }).click();
      expect(await admin.getByTestId('hub-secret').count()).toBe(0);
    }
    await expect.poll(() => text(admin, 'hub-people-count')).toBe('(3)');
    expect(await admin.getByTestId('hub-person-rob-role-reviewer').isChecked()).toBe(true);
    expect(await admin.getByTestId('hub-person-rob-role-annotator').isChecked()).toBe(false);

    // the audit log, newest first: the two adds, the password change, the sign-ins
    const actions = () => admin.getByTestId('hub-audit-row-action').allTextContents();
    await expect
      .poll(actions)
      .toEqual(expect.arrayContaining(['user.add', 'user.password-change', 'auth.login']));
    const all = await actions();
    expect(all.slice(0, 2)).toEqual(['user.add', 'user.add']);
    expect(all.filter((a) => a === 'auth.login-failed')).toHaveLength(1);
    // filters: the adds by boss (the first admin's was made by the CLI, as os:…)
    await admin.getByTestId('hub-audit-action').fill('user.add');
    await admin.getByTestId('hub-audit-filter').click();
    await expect.poll(actions).toEqual(['user.add', 'user.add', 'user.add']);
    await admin.getByTestId('hub-audit-actor').fill('boss');
    await admin.getByTestId('hub-audit-filter').click();
    await expect.poll(actions).toEqual(['user.add', 'user.add']);
    expect(await admin.getByTestId('hub-audit-older').isDisabled()).toBe(true);
    await admin.getByTestId('hub-audit-actor').fill('');
    await admin.getByTestId('hub-audit-action').fill('');
    await admin.getByTestId('hub-audit-filter').click();
  });

  it('the last-admin guard, a token made and revoked, roles changed', async () => {
    // boss is the only admin: taking the role away is refused with its fix
    await admin.getByTestId('hub-person-boss-role-admin').setChecked(false);
    await admin.getByTestId('hub-person-boss-role-annotator').setChecked(true);
    await admin.getByTestId('hub-person-boss-save').click();
    await admin.getByTestId('hub-team-error').waitFor();
    expect(await text(admin, 'hub-team-error-code')).toBe('HUB_LAST_ADMIN');
    await admin.getByRole('button', { name: 'Dismiss' }).click();
    // as is removing oneself
    await admin.getByTestId('hub-person-boss-remove').click();
    await admin.getByTestId('hub-person-boss-confirm-remove').click();
    await admin.getByTestId('hub-team-error').waitFor();
    expect(await text(admin, 'hub-team-error-code')).toBe('HUB_LAST_ADMIN');
    await admin.getByRole('button', { name: 'Dismiss' }).click();

    // a person may hold several roles: boss becomes an annotator too, and the nav shows both
    await admin.getByTestId('hub-person-boss-role-admin').setChecked(true);
    await admin.getByTestId('hub-person-boss-save').click();
    await expect.poll(() => text(admin, 'hub-team-notice')).toBe('boss: admin → annotator, admin.');
    await admin.getByTestId('hub-nav-submissions').waitFor();
    expect(await admin.getByTestId('hub-nav-team').count()).toBe(1);

    await admin.getByTestId('hub-token-name').fill('laptop');
    await admin.getByTestId('hub-token-create').click();
    await admin.getByTestId('hub-token-laptop').waitFor();
    const token = await text(admin, 'hub-secret-value');
    expect(token).toMatch(/^cuah_[A-Za-z0-9_-]{43}$/);
    const whoami = await request(hub!.url, 'auth:whoami', {}, { token });
    expect(whoami.body.value).toMatchObject({ user: 'boss', via: 'token' });
    await admin.getByTestId('hub-token-laptop-revoke').click();
    await expect.poll(() => text(admin, 'hub-token-state')).toMatch(/^revoked /);
    const after = await request(hub!.url, 'auth:whoami', {}, { token });
    expect(after.status).toBe(401);
  });

  it('the annotator signs in, sees only My submissions, is refused users:list, and sees the submission, then the verdict’s grade and feedback', async () => {
    annotator = await newPage();
    await signIn(annotator, 'alice', oneTime.alice!);
    await changePassword(annotator, NEW_PASSWORD.alice);
    await annotator.getByTestId('hub-submissions').waitFor();
    expect(await annotator.getByTestId('hub-nav-team').count()).toBe(0);
    expect(await annotator.getByTestId('hub-nav-review').count()).toBe(0);
    await expect.poll(() => text(annotator, 'hub-submissions-count')).toBe('0 submissions');
    // a direct call from the page's own context, with its session: the role table refuses it
    const refused = await annotator.evaluate(async () => {
      const res = await fetch('/api/users:list', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
    });
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    // and #/team shows the annotator's own page
    await annotator.goto(`${hub!.url}/#/team`);
    await annotator.getByTestId('hub-submissions').waitFor();
    expect(await annotator.getByTestId('hub-team').count()).toBe(0);

    // alice's library signs in (her new password) and submits the example recording, as the
    // round trip does; the hub checks it (its intake job) before it joins the queue
    const login = await runCliWithInput(
      ['login', hub!.url, '--user', 'alice', '--password-stdin', '--library', aliceLibrary],
      `${NEW_PASSWORD.alice}\n`,
    );
    expect(login.code, login.stderr).toBe(0);
    const submit = await runCli([
      ...['submit', recordingId, '--no-keyframes', '--library', aliceLibrary, '--json'],
    ]);
    expect(submit.code, submit.stderr).toBe(0);
    expect(JSON.parse(submit.stdout)).toMatchObject({
      submissions: [{ recording: recordingId, version: 1 }],
    });

    const row = annotator.getByTestId(`hub-submission-${recordingId}`);
    // Refresh until the hub's intake passed it (seconds)
    await expect
      .poll(
        async () => {
          await annotator.getByRole('button', { name: 'Refresh' }).click();
          return (await row.count())
            ? await row.getByTestId('hub-submission-status').textContent()
            : null;
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe('Waiting for review');
    await expect.poll(() => text(annotator, 'hub-submissions-count')).toBe('1 submission');
    expect(await row.getByTestId('hub-submission-version').textContent()).toBe('1');
    expect(await row.getByTestId('hub-submission-grade').textContent()).toBe('—');
    expect(await row.textContent()).toContain(recordingId);
    expect(await text(annotator, 'hub-my-count-submitted')).toBe('1');
  });

  it('the reviewer’s queue shows what waits, the lease held with its expiry, and the verdict given; the annotator then sees grade and feedback', async () => {
    reviewer = await newPage();
    await signIn(reviewer, 'rob', oneTime.rob!);
    await changePassword(reviewer, NEW_PASSWORD.rob);
    await reviewer.getByTestId('hub-review').waitFor();
    expect(await reviewer.getByTestId('hub-nav-team').count()).toBe(0);
    expect(await reviewer.getByTestId('hub-nav-submissions').count()).toBe(0);
    await expect.poll(() => text(reviewer, 'hub-review-waiting-count')).toBe('1');
    await reviewer.getByTestId('hub-review-mine-empty').waitFor();
    await reviewer.getByTestId('hub-review-done-empty').waitFor();
    expect(await reviewer.getByTestId('hub-review').textContent()).toContain(
      'cua-annotator review next',
    );

    // rob takes it (the app's or the CLI's review next)
    const as = await apiSession('rob', NEW_PASSWORD.rob);
    const next = await as('review:next', {});
    expect(next.body.value.submission).toMatchObject({ recording: recordingId, version: 1 });
    const { id, leaseExpiresAtMs } = next.body.value.submission as {
      id: number;
      leaseExpiresAtMs: number;
    };
    await reviewer.getByRole('button', { name: 'Refresh' }).click();
    await reviewer.getByTestId(`hub-lease-${recordingId}`).waitFor();
    await expect.poll(() => text(reviewer, 'hub-review-waiting-count')).toBe('0');
    const expiry = await text(reviewer, 'hub-lease-expiry');
    // the time the lease ends, and how long is left
    expect(expiry).toMatch(/\(in \S+\)$/);
    expect(leaseExpiresAtMs).toBeGreaterThan(Date.now());

    const verdict = await as('review:verdict', {
      id,
      version: 1,
      verdict: 'changes',
      grade: 'ok',
      feedback: 'Step 2 clicks the clock, not the tray icon.',
    });
    expect(verdict.body.value).toMatchObject({ status: 'changes' });
    await reviewer.getByRole('button', { name: 'Refresh' }).click();
    await reviewer.getByTestId(`hub-done-${recordingId}`).waitFor();
    await reviewer.getByTestId('hub-review-mine-empty').waitFor();
    expect(await text(reviewer, 'hub-done-verdict')).toBe('changes');

    await annotator.getByRole('button', { name: 'Refresh' }).click();
    const row = annotator.getByTestId(`hub-submission-${recordingId}`);
    await expect
      .poll(() => row.getByTestId('hub-submission-status').textContent())
      .toBe('Changes requested');
    expect(await row.getByTestId('hub-submission-grade').textContent()).toBe('ok');
    expect(await row.getByTestId('hub-submission-feedback').textContent()).toBe(
      'Step 2 clicks the clock, not the tray icon.',
    );
    expect(await row.getByTestId('hub-submission-reviewer').textContent()).toBe('rob');
    // the annotator's own counts: one with changes requested, no final verdict yet (no rate)
    expect(await text(annotator, 'hub-my-count-changes')).toBe('1');
    expect(await annotator.getByTestId('hub-my-count-submitted').count()).toBe(0);
    expect(await text(annotator, 'hub-my-acceptance')).toBe('–');

    // the admin's log has the round trip
    await admin.getByTestId('hub-audit-action').fill('submission');
    await admin.getByTestId('hub-audit-filter').click();
    await expect
      .poll(() => admin.getByTestId('hub-audit-row-action').allTextContents())
      .toEqual(expect.arrayContaining(['submission.submit', 'submission.lease']));
    const submissionActions = await admin.getByTestId('hub-audit-row-action').allTextContents();
    // newest first; the hub's own steps (its intake job) may sit between them
    expect(
      submissionActions.filter((a) =>
        ['submission.verdict', 'submission.lease', 'submission.submit'].includes(a),
      ),
    ).toEqual(['submission.verdict', 'submission.lease', 'submission.submit']);
  });

  it('a version the hub’s checks refuse shows on My submissions with the reasons and fixes', async () => {
    // a bundle made by hand (random bytes for a video, no library tables): the API takes it,
    // the hub's intake job refuses it before any reviewer sees it
    const as = await apiSession('alice', NEW_PASSWORD.alice);
    const b = testBundle({
      recordingId: 'rec-by-hand',
      annotator: 'alice',
      files: {
        'video/screen.mp4': randomBytes(20_000),
        'steps/steps.json': Buffer.from('[{"step":1}]\n'),
      },
    });
    const plan = await as('submissions:plan-upload', { manifest: b.text });
    expect(plan.status).toBe(200);
    for (const u of plan.body.value.uploads as {
      path: string;
      request: { url: string; headers: Record<string, string> };
    }[]) {
      const put = await fetch(u.request.url, {
        method: 'PUT',
        headers: u.request.headers,
        body: b.files[u.path],
      });
      expect(put.status, u.path).toBe(200);
    }
    const registered = await as('submissions:register', {
      recording: 'rec-by-hand',
      manifestSha256: plan.body.value.manifestSha256,
    });
    expect(registered.status).toBe(200);
    const row = annotator.getByTestId('hub-submission-rec-by-hand');
    await expect
      .poll(
        async () => {
          await annotator.getByRole('button', { name: 'Refresh' }).click();
          return (await row.count())
            ? await row.getByTestId('hub-submission-status').textContent()
            : null;
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe('Failed the hub’s checks');
    const reasons = await row.getByTestId('hub-submission-intake').locator('li').allTextContents();
    expect(reasons.length).toBeGreaterThan(0);
    for (const r of reasons) {
      expect(r).toMatch(/^[A-Z_]+ .+ Fix: .+/);
    }
    // it never reached the reviewers
    await reviewer.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => text(reviewer, 'hub-review-waiting-count')).toBe('0');

    // the admin's Dashboard lists it as a dead letter of the intake queue, with the same
    // reasons (docs/jobs.md §5); Retry checks nothing again: it comes back, one attempt more
    await admin.getByTestId('hub-nav-dashboard').click();
    const jobs = admin.getByTestId('hub-jobs');
    const intake = jobs.getByTestId('hub-jobs-queue-intake');
    await expect
      .poll(() => intake.getByTestId('failed').textContent(), { timeout: 30_000 })
      .toBe('1');
    const dead = jobs.locator('[data-testid=hub-jobs-dead-row]');
    expect(await dead.count()).toBe(1);
    expect(await dead.getAttribute('data-key')).toMatch(/^intake:\d+@1$/);
    const why = await dead.getByTestId('hub-jobs-dead-why').textContent();
    expect(why).toContain('INTAKE_FAILED');
    for (const r of reasons) {
      expect(why).toContain(r.split(' ')[0]!);
    }
    const attempts = Number(await dead.getByTestId('hub-jobs-dead-attempts').textContent());
    await dead.getByTestId('hub-jobs-retry').click();
    await expect
      .poll(
        async () => {
          await admin.getByRole('button', { name: 'Refresh' }).click();
          const rows = jobs.locator('[data-testid=hub-jobs-dead-row]');
          return (await rows.count()) === 1
            ? Number(await rows.getByTestId('hub-jobs-dead-attempts').textContent())
            : null;
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe(attempts + 1);
    // throughput: jobs done per minute since the page opened, once 10 s have passed
    await expect
      .poll(() => intake.getByTestId('rate').textContent(), { timeout: 30_000, interval: 1_000 })
      .toMatch(/^\d+\.\d$/);
    // and the annotator's view is unchanged
    await annotator.getByRole('button', { name: 'Refresh' }).click();
    expect(await row.getByTestId('hub-submission-status').textContent()).toBe(
      'Failed the hub’s checks',
    );
  });

  it('a rate-limited sign-in shows its wait; signing out ends the session', async () => {
    const page = await newPage();
    // each try waits for the hub's answer (the error shown stays the same between tries)
    const tryOnce = async (password: string) => {
      const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth:login'));
      await signIn(page, 'ghost', password);
      return (await answered).status();
    };
    for (let i = 0; i < 5; i += 1) {
      expect(await tryOnce(`wrong ${i}`)).toBe(401);
      expect(await text(page, 'hub-signin-error-code')).toBe('UNAUTHORIZED');
    }
    expect(await tryOnce('wrong again')).toBe(429);
    await expect.poll(() => text(page, 'hub-signin-error-code')).toBe('RATE_LIMITED');
    expect(await text(page, 'hub-signin-wait')).toMatch(
      /^Too many failed sign-ins: try again in \d+ s\.$/,
    );
    expect(await page.getByTestId('hub-signin-submit').isDisabled()).toBe(true);

    await annotator.getByTestId('hub-sign-out').click();
    await annotator.getByTestId('hub-signin').waitFor();
    expect(await text(annotator, 'hub-signin-notice')).toBe('Signed out.');
    const after = await annotator.evaluate(async () => {
      const res = await fetch('/api/auth:whoami', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return res.status;
    });
    expect(after).toBe(401);
  });
});
