// The library page at 10,000 recordings, in Debian Chromium over the IPC transport: the built
// renderer is served from files through request interception and `window.api` is a fake
// preload bridge answering `recordings:list` from 10,000 generated summaries. The table must keep
// a bounded number of rows in the DOM and fetch only the pages it shows.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths';
import { launchChromium } from './chromium';

const RENDERER_DIR = path.join(REPO_ROOT, 'out', 'renderer');
const ORIGIN = 'http://renderer.test';
const COUNT = 10_000;

// The fake preload bridge, installed before the page's scripts run (serialised into the page;
// `globalThis` is the page's window there).
function installFakeBridge(count: number): void {
  type Query = { sort?: string; order?: string; offset?: number; limit?: number };
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `rec-${String(i).padStart(5, '0')}`,
    task: `Task number ${i}: open the settings and change option ${i % 97}`,
    status: 'complete',
    reviewStatus: ['draft', 'submitted', 'accepted', 'needs-edit', 'rejected'][i % 5],
    source: 'recorder',
    os: ['linux', 'win32', 'darwin'][i % 3],
    createdAtMs: 1_700_000_000_000 + i * 60_000,
    recordedAt: null,
    durationMs: 30_000 + (i % 600) * 1000,
    stepCount: i % 40,
    eventCount: 1000,
  }));
  const calls: { method: string; payload: Query }[] = [];
  (globalThis as unknown as { __calls: typeof calls }).__calls = calls;
  (globalThis as unknown as { api: unknown }).api = {
    invoke: (method: string, payload: Query) => {
      calls.push({ method, payload });
      if (method !== 'recordings:list') {
        return Promise.resolve({ ok: false, error: { code: 'UNKNOWN_METHOD', message: method } });
      }
      const key = payload.sort === 'steps' ? 'stepCount' : 'createdAtMs';
      const sign = payload.order === 'asc' ? 1 : -1;
      const sorted = [...rows].sort((a, b) => sign * (a[key] - b[key]) || a.id.localeCompare(b.id));
      const offset = payload.offset ?? 0;
      const items = sorted.slice(offset, offset + (payload.limit ?? 200));
      return Promise.resolve({ ok: true, value: { total: rows.length, items } });
    },
    on: () => () => undefined,
  };
}

type Calls = { method: string; payload: { sort?: string; offset?: number; limit?: number } }[];
const listCalls = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { __calls: Calls }).__calls);
const domRows = (page: Page) => page.locator('[data-testid=library-row]').count();

describe('library page at 10,000 recordings (Chromium, IPC transport, fake window.api)', () => {
  let browser: Browser | null = null;
  let page: Page;

  beforeAll(async () => {
    if (!fs.existsSync(path.join(RENDERER_DIR, 'index.html'))) {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
            'build',
            '-c',
            'vite.renderer.config.ts',
          ],
          { cwd: REPO_ROOT, stdio: 'ignore' },
        );
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve() : reject(new Error(`vite build exited ${code}`)),
        );
      });
    }
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // the built files, served without any server
    await page.route(`${ORIGIN}/**`, async (route) => {
      const rel = new URL(route.request().url()).pathname.replace(/^\/+/, '') || 'index.html';
      const file = path.join(RENDERER_DIR, rel);
      if (!file.startsWith(RENDERER_DIR + path.sep) || !fs.existsSync(file)) {
        await route.fulfill({ status: 404, body: 'not found' });
        return;
      }
      await route.fulfill({ path: file });
    });
    await page.addInitScript(installFakeBridge, COUNT);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('renders only the visible rows and fetches only the pages in view', async () => {
    const t0 = Date.now();
    await page.goto(`${ORIGIN}/index.html#/`);
    await page.locator('[data-testid=library-row]').first().waitFor({ timeout: 15_000 });
    console.log(`first rows of ${COUNT} after ${Date.now() - t0} ms`);
    expect(await page.getByTestId('library-count').textContent()).toBe('10,000 recordings');
    const initialRows = await domRows(page);
    expect(initialRows).toBeGreaterThan(10);
    expect(initialRows).toBeLessThan(50);

    // jump to the very end: the last recording appears, the DOM stays small
    const t1 = Date.now();
    await page.getByTestId('library-viewport').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    const last = page.locator('[data-testid=library-row][data-id="rec-00000"]');
    await last.waitFor({ timeout: 15_000 });
    console.log(`scrolled to row ${COUNT} in ${Date.now() - t1} ms`);
    expect(await domRows(page)).toBeLessThan(50);
    const offsets = (await listCalls(page))
      .filter((c) => c.method === 'recordings:list')
      .map((c) => c.payload.offset);
    // page 0 once on load (main.tsx's prefetch is the page's data: the mount asks again only for
    // a later visit), then the last page(s) only: never all 20 pages
    expect(offsets[0]).toBe(0);
    expect(
      offsets.filter((o) => o === 0),
      JSON.stringify(offsets),
    ).toHaveLength(1);
    expect(offsets.length, JSON.stringify(offsets)).toBeLessThanOrEqual(3);
    expect(offsets.at(-1)).toBe(9500);
  });

  it('sorts through the service, selects all 10,000 and offers them for export', async () => {
    await page.getByRole('button', { name: /Steps/ }).click();
    await page.waitForFunction(
      () => (globalThis as unknown as { __calls: Calls }).__calls.at(-1)?.payload.sort === 'steps',
      undefined,
      { timeout: 10_000 },
    );
    await page.getByLabel('Select all matching recordings').check();
    await page.getByText('10,000 selected').waitFor({ timeout: 15_000 });
    // select-all fetched every id in pages of the service's maximum
    const big = (await listCalls(page)).filter((c) => c.payload.limit === 5000);
    expect(big.map((c) => c.payload.offset)).toEqual([0, 5000]);
    await page.getByTestId('library-export').click();
    expect(await page.locator('#export-title').textContent()).toBe('Export 10,000 recordings');
    expect(await page.getByTestId('export-start').isDisabled()).toBe(true);
  });
});
