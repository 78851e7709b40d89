// The recording page at 2,000 steps, in Debian Chromium over the IPC transport: the built
// renderer is served from files through request interception and `window.api` is a fake preload
// bridge answering `recordings:get` with a generated recording. The step list must keep a bounded
// number of cards in the DOM and still bring the selected step into view, also one that was
// scrolled far away (not rendered at the time).
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingDto } from '../../src/shared/contract';
import { REPO_ROOT } from '../helpers/paths';
import { makeRecording, makeStep } from '../renderer/helpers/dto';
import { launchChromium } from './chromium';
import { ensureRendererBuilt } from './serve';

const RENDERER_DIR = path.join(REPO_ROOT, 'out', 'renderer');
const ORIGIN = 'http://renderer.test';
const COUNT = 2000;

// The fake preload bridge, installed before the page's scripts run (serialised into the page).
function installFakeBridge(dto: unknown): void {
  (globalThis as unknown as { api: unknown }).api = {
    invoke: (method: string) =>
      Promise.resolve(
        method === 'recordings:get'
          ? { ok: true, value: dto }
          : { ok: false, error: { code: 'UNKNOWN_METHOD', message: method } },
      ),
    on: () => () => undefined,
  };
}

const cards = (page: Page) => page.locator('[data-testid=step-card]');
const selectedId = (page: Page) =>
  page.locator('[data-testid=step-card][aria-selected=true]').getAttribute('data-step-id');

type Rect = { top: number; bottom: number };
type PageDocument = {
  querySelector(selector: string): { getBoundingClientRect(): Rect } | null;
};

/** True when the card is in the DOM and lies wholly inside the visible part of the steps pane
 * (one evaluation: no waiting for a card that is not rendered). */
function isInView(page: Page, stepId: string): Promise<boolean> {
  return page.evaluate((id) => {
    const doc = (globalThis as unknown as { document: PageDocument }).document;
    const card = doc.querySelector(`[data-testid=step-card][data-step-id="${id}"]`);
    const pane = doc.querySelector('.rec-steps');
    if (!card || !pane) {
      return false;
    }
    const c = card.getBoundingClientRect();
    const p = pane.getBoundingClientRect();
    return c.top >= p.top - 1 && c.bottom <= p.bottom + 1;
  }, stepId);
}

/** Polls generously: the machines running this are often busy. */
const POLL = { timeout: 15_000 };

describe('step list at 2,000 steps (Chromium, IPC transport, fake window.api)', () => {
  let browser: Browser | null = null;
  let page: Page;

  beforeAll(async () => {
    await ensureRendererBuilt();
    // labels of one and two lines and steps with notes: cards of different heights
    const dto: RecordingDto = makeRecording(COUNT, {
      video: null,
      steps: Array.from({ length: COUNT }, (_, i) =>
        makeStep(`s${i}`, i, {
          label: i % 3 === 0 ? `step ${i}: ${'a longer label that wraps '.repeat(3)}` : `step ${i}`,
          diagnostics: i % 7 === 0 ? ['a note'] : [],
        }),
      ),
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.route(`${ORIGIN}/**`, async (route) => {
      const rel = new URL(route.request().url()).pathname.replace(/^\/+/, '') || 'index.html';
      const file = path.join(RENDERER_DIR, rel);
      if (!file.startsWith(RENDERER_DIR + path.sep) || !fs.existsSync(file)) {
        await route.fulfill({ status: 404, body: 'not found' });
        return;
      }
      await route.fulfill({ path: file });
    });
    // (as unknown: the DTO's type is too deep for Playwright's serialisable-argument type)
    const bridgeArg: unknown = dto;
    await page.addInitScript(installFakeBridge, bridgeArg);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('renders only the cards near the viewport', async () => {
    await page.goto(`${ORIGIN}/index.html#/recording/rec-1`);
    await cards(page).first().waitFor({ timeout: 15_000 });
    expect(await page.locator('.rec-sub').textContent()).toContain(`${COUNT} steps`);
    const n = await cards(page).count();
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThan(60);
  });

  it('follows ↓ with the list, and scrolls to the end with a bounded DOM', async () => {
    await cards(page).first().click();
    for (let i = 0; i < 30; i += 1) {
      await page.keyboard.press('ArrowDown');
    }
    await expect.poll(() => selectedId(page), POLL).toBe('s30');
    await expect.poll(() => isInView(page, 's30'), POLL).toBe(true);
    // to the very end: the last card shows, the DOM stays small
    await page.locator('.rec-steps').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    const last = page.locator(`[data-testid=step-card][data-step-id="s${COUNT - 1}"]`);
    await last.waitFor({ timeout: 15_000 });
    await expect.poll(() => isInView(page, `s${COUNT - 1}`), POLL).toBe(true);
    expect(await cards(page).count()).toBeLessThan(60);
  });

  it('brings a selected step that was scrolled out of the DOM back into view', async () => {
    // s30 is still selected; scrolled away at the end of the list it is not rendered
    expect(await page.locator('[data-testid=step-card][data-step-id="s30"]').count()).toBe(0);
    // (the clicked card left the DOM with its focus: the keys go to the page)
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => selectedId(page), POLL).toBe('s31');
    await expect.poll(() => isInView(page, 's31'), POLL).toBe(true);
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => selectedId(page), POLL).toBe('s30');
    await expect.poll(() => isInView(page, 's30'), POLL).toBe(true);
  });
});
