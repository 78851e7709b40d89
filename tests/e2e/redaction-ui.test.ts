// End to end: redaction in the review UI, in Debian Chromium (playwright-core) against a real
// `cua-annotator serve` child. The AgentNet fixture gets an e-mail address in its description, a
// card number typed by an edited step and an excluded interval. In the Privacy panel the card is
// redacted (a `redact-text` edit with the number, looked up by the service), the address
// accepted with a note (a `pii-accept` edit), Undo reopens it and "Redact all open" redacts it.
// On the video a box is dragged with the mouse in "Redact area" mode and applied: the edit log
// holds a `redact-box` whose box is the dragged rectangle in video pixels (±2 px, through the
// letterboxing), and the black box shows while the playhead is inside its range, not outside;
// the excluded interval blanks the picture while the playhead is in it.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingDto, StepEdit } from '../../src/shared/contract';
import { applyEdit } from '../../src/services/edits/edit-service';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import { updateRecordingTask } from '../../src/services/review-service';
import { DB_FILE_NAME } from '../../src/services/library/library';
import { insertMark, listEdits, resolveRecordingSeq, type Db } from '../../src/store';
import { tempLibrary } from '../helpers/library';
import { FIXTURE_DIR } from '../helpers/paths';
import { launchChromium } from './chromium';
import { callApi, startServer, stop, type Served, rendererHolding } from './serve';

const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';
/** The fixture's 7th step (a click), made to type the card number. */
const CARD_STEP_ID = 'agentnet:6';

describe('Redaction in the review UI end to end (Chromium + cua-annotator serve)', () => {
  const lib = tempLibrary();
  let id = '';
  let served: Served | null = null;
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  let builtRenderer: string | null = null;
  let page: Page;
  let db: Db | undefined;
  let rec: RecordingDto;
  /** The excluded interval, recording clock ms. */
  let excluded = { startMs: 0, endMs: 0 };
  /** An excluded window's rectangle (video px) over a time range (issue 26, item 6). */
  let region = { startMs: 0, endMs: 0, box: { x: 0, y: 0, width: 0, height: 0 } };

  const recordingUrl = (rec: string) => `${served!.origin}/#/recording/${encodeURIComponent(rec)}`;
  /** The recording's active edits, read from the library the server writes. */
  const activeEdits = (): StepEdit[] =>
    listEdits(db!, resolveRecordingSeq(db!, id).seq, ['active']).map((e) => e.edit);
  const item = (kind: string) => page.locator(`[data-testid=privacy-item][data-kind=${kind}]`);
  const status = () => page.getByTestId('privacy-status').textContent();
  /** Moves the playhead to recording time `ms` and waits until the player shows it. */
  const seekTo = async (ms: number) => {
    const sec = (ms - rec.video!.startMs) / 1000;
    await page.getByTestId('video').evaluate((v, s) => {
      (v as unknown as { currentTime: number }).currentTime = s;
    }, sec);
    await expect
      .poll(() =>
        page
          .getByTestId('video')
          .evaluate((v) => (v as unknown as { seeking: boolean }).seeking === false),
      )
      .toBe(true);
  };
  const boxes = () => page.getByTestId('redaction-box');

  beforeAll(async () => {
    builtRenderer = await rendererHolding('redaction-region');
    if (builtRenderer) {
      // read by startServer (this file runs in its own worker)
      process.env.CUA_E2E_RENDERER = builtRenderer;
    }
    id = (await importAgentNetFolder(lib.lib, FIXTURE_DIR, { appVersion: '0.0.0-e2e' })).id;
    updateRecordingTask(
      lib.lib,
      id,
      { description: `Send the result to ${EMAIL} when done.` },
      Date.now(),
    );
    applyEdit(lib.lib, id, {
      op: 'set-action',
      stepId: CARD_STEP_ID,
      calls: [{ name: 'write', args: { message: `paid with ${CARD}` } }],
    });
    lib.lib.close();
    served = await startServer(lib.dir);
    server = served.child;
    rec = (await callApi(served, 'recordings:get', { id })).value as RecordingDto;
    // an excluded interval over the video's last fifth
    const v = rec.video!;
    excluded = {
      startMs: Math.round(v.startMs + v.durationMs * 0.8),
      endMs: Math.round(v.startMs + v.durationMs * 0.9),
    };
    db = new Database(path.join(lib.dir, DB_FILE_NAME), { fileMustExist: true });
    insertMark(db, resolveRecordingSeq(db, id).seq, {
      tMs: excluded.startMs,
      endMs: excluded.endMs,
      kind: 'excluded',
      data: {},
    });
    // an excluded window on the screen, not focused, over the video's second tenth
    region = {
      startMs: Math.round(v.startMs + v.durationMs * 0.1),
      endMs: Math.round(v.startMs + v.durationMs * 0.2),
      box: {
        x: Math.round(v.width * 0.5),
        y: Math.round(v.height * 0.1),
        width: Math.round(v.width * 0.25),
        height: Math.round(v.height * 0.4),
      },
    };
    insertMark(db, resolveRecordingSeq(db, id).seq, {
      tMs: region.startMs,
      endMs: region.endMs,
      kind: 'excluded-region',
      data: { rule: 'title:/secret/', bounds: region.box },
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(served.url);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stop(server);
    db?.close();
    fs.rmSync(lib.dir, { recursive: true, force: true });
    if (builtRenderer) {
      fs.rmSync(builtRenderer, { recursive: true, force: true });
    }
  });

  it('Redact and Accept resolve findings as edits; Undo reopens one; Redact all open', async () => {
    await page.goto(recordingUrl(id));
    await expect.poll(() => page.getByTestId('step-card').count(), { timeout: 15_000 }).toBe(14);
    await page.getByTestId('tab-privacy').click();
    await expect.poll(status, { timeout: 15_000 }).toBe('2 findings, 1 blocking');
    expect(await item('card').getAttribute('data-resolved')).toBe('');

    await item('card').getByTestId('privacy-redact').click();
    await expect.poll(() => item('card').getAttribute('data-resolved')).toBe('redacted');
    await expect.poll(status).toBe('2 findings, 1 resolved');
    expect(await item('card').getByTestId('privacy-resolved').textContent()).toBe('redacted');
    expect(activeEdits().at(-1)).toEqual({
      op: 'redact-text',
      findingId: await item('card').getAttribute('data-finding-id'),
      text: CARD,
      kind: 'card',
    });

    await item('email').getByTestId('privacy-accept').click();
    await item('email').getByTestId('privacy-accept-note').fill('the team address, public');
    await item('email').getByTestId('privacy-accept-confirm').click();
    await expect.poll(() => item('email').getAttribute('data-resolved')).toBe('accepted');
    await expect.poll(status).toBe('2 findings, 2 resolved');
    expect(activeEdits().at(-1)).toEqual({
      op: 'pii-accept',
      findingId: await item('email').getAttribute('data-finding-id'),
      note: 'the team address, public',
    });
    // the rescanned findings agree with the service
    const scan = (await callApi(served!, 'privacy:scan', { id })).value as {
      findings: { kind: string; resolved: string | null }[];
    };
    expect(scan.findings.map((f) => [f.kind, f.resolved]).sort()).toEqual([
      ['card', 'redacted'],
      ['email', 'accepted'],
    ]);

    // undo takes the acceptance back: the address is open again
    await page.getByTestId('undo').click();
    await expect.poll(() => item('email').getAttribute('data-resolved')).toBe('');
    await expect.poll(status).toBe('2 findings, 1 resolved');
    expect(activeEdits().map((e) => e.op)).not.toContain('pii-accept');
    await page.getByTestId('privacy-redact-all').click();
    await expect.poll(() => item('email').getAttribute('data-resolved')).toBe('redacted');
    expect(activeEdits().at(-1)).toMatchObject({ op: 'redact-text', text: EMAIL, kind: 'email' });
    expect(await page.getByTestId('privacy-redact-all').isDisabled()).toBe(true);
  });

  it('a box dragged on the video is stored in video pixels and blacks out its time range', async () => {
    const v = rec.video!;
    const videoEl = page.getByTestId('video');
    await expect
      .poll(() => videoEl.evaluate((el) => (el as unknown as { readyState: number }).readyState))
      .toBeGreaterThanOrEqual(1);
    const at = Math.round(v.startMs + v.durationMs * 0.3);
    await seekTo(at);
    await page.getByTestId('redact-area').click();
    // where the picture sits in the element (object-fit: contain letterboxes it)
    const el = (await videoEl.boundingBox())!;
    const scale = Math.min(el.width / v.width, el.height / v.height);
    const pic = {
      x: el.x + (el.width - v.width * scale) / 2,
      y: el.y + (el.height - v.height * scale) / 2,
      w: v.width * scale,
      h: v.height * scale,
    };
    const from = { x: pic.x + pic.w * 0.2, y: pic.y + pic.h * 0.3 };
    const to = { x: pic.x + pic.w * 0.55, y: pic.y + pic.h * 0.6 };
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 3 });
    await page.mouse.move(to.x, to.y, { steps: 3 });
    await page.mouse.up();
    await page.getByTestId('redact-draft').waitFor();
    expect(await page.getByTestId('redact-box-size').textContent()).toMatch(/^\d+×\d+ px at /);
    // the range: the frame shown to one second later (typed seconds move the end)
    const startSec = Number(await page.getByTestId('redact-start').inputValue());
    expect(Math.abs(startSec - (at - v.startMs) / 1000)).toBeLessThanOrEqual(1 / v.fps + 0.001);
    expect(Number(await page.getByTestId('redact-end').inputValue())).toBeCloseTo(startSec + 1, 3);
    await page.getByTestId('redact-end').fill(String(startSec + 2));
    await page.getByTestId('redact-apply').click();
    await expect.poll(() => page.getByTestId('redact-draft').count()).toBe(0);

    await expect.poll(() => activeEdits().at(-1)?.op).toBe('redact-box');
    const edit = activeEdits().at(-1) as Extract<StepEdit, { op: 'redact-box' }>;
    const want = {
      x: v.width * 0.2,
      y: v.height * 0.3,
      width: v.width * 0.35,
      height: v.height * 0.3,
    };
    for (const k of ['x', 'y', 'width', 'height'] as const) {
      expect(Math.abs(edit.box[k] - want[k]), k).toBeLessThanOrEqual(2);
    }
    expect(edit.stepId).toBeNull();
    expect(Math.abs(edit.startMs - (v.startMs + startSec * 1000))).toBeLessThanOrEqual(1);
    expect(Math.abs(edit.endMs - (edit.startMs + 2000))).toBeLessThanOrEqual(1);

    // the black box over the picture while the playhead is inside the range, where it was drawn
    await expect.poll(() => boxes().count()).toBe(1);
    const shown = (await boxes().boundingBox())!;
    expect(Math.abs(shown.x - from.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(shown.y - from.y)).toBeLessThanOrEqual(2);
    expect(Math.abs(shown.x + shown.width - to.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(shown.y + shown.height - to.y)).toBeLessThanOrEqual(2);
    const style = (b: unknown) =>
      (
        globalThis as unknown as { getComputedStyle: (e: unknown) => { backgroundColor: string } }
      ).getComputedStyle(b).backgroundColor;
    expect(await boxes().evaluate(style)).toBe('rgb(0, 0, 0)');
    await seekTo(edit.endMs + 500);
    await expect.poll(() => boxes().count()).toBe(0);
    await seekTo(edit.startMs + 1000);
    await expect.poll(() => boxes().count()).toBe(1);
    await seekTo(edit.startMs - 500);
    await expect.poll(() => boxes().count()).toBe(0);

    // the excluded interval blanks the whole picture while the playhead is in it
    expect(await page.getByTestId('redaction-excluded').count()).toBe(0);
    await seekTo((excluded.startMs + excluded.endMs) / 2);
    await expect.poll(() => page.getByTestId('redaction-excluded').count()).toBe(1);
    const blank = (await page.getByTestId('redaction-excluded').boundingBox())!;
    expect(Math.abs(blank.width - pic.w)).toBeLessThanOrEqual(2);
    expect(Math.abs(blank.height - pic.h)).toBeLessThanOrEqual(2);

    // item 34: an excluded window's rectangle is black where it was, while the playhead is in
    // its time range
    const regions = () => page.getByTestId('redaction-region');
    expect(await regions().count()).toBe(0);
    await seekTo((region.startMs + region.endMs) / 2);
    await expect.poll(() => regions().count()).toBe(1);
    const r = (await regions().boundingBox())!;
    expect(Math.abs(r.x - (pic.x + region.box.x * scale))).toBeLessThanOrEqual(2);
    expect(Math.abs(r.y - (pic.y + region.box.y * scale))).toBeLessThanOrEqual(2);
    expect(Math.abs(r.width - region.box.width * scale)).toBeLessThanOrEqual(2);
    expect(Math.abs(r.height - region.box.height * scale)).toBeLessThanOrEqual(2);
    expect(await regions().evaluate(style)).toBe('rgb(0, 0, 0)');
    await seekTo(region.endMs + 500);
    await expect.poll(() => regions().count()).toBe(0);

    // undo takes the box away
    await seekTo(edit.startMs + 1000);
    await expect.poll(() => boxes().count()).toBe(1);
    await page.getByTestId('undo').click();
    await expect.poll(() => boxes().count()).toBe(0);
    expect(activeEdits().map((e) => e.op)).not.toContain('redact-box');
  });
});
