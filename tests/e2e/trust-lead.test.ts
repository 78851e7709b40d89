// End to end (issue 26 item 23, README row 51): a long task without spaces on the Uploads page
// wraps inside its card, and the upload's status stays visible (Debian Chromium + serve).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleLibrary } from '../helpers/example-library';
import { launchChromium } from './chromium';
import { callApi, ensureRendererBuilt, startServer, stop, type Served } from './serve';

describe('issue 26: the Uploads page with a long task (Chromium + cua-annotator serve)', () => {
  let lib: Awaited<ReturnType<typeof exampleLibrary>>;
  let served: Served | null = null;
  let browser: Browser | null = null;
  // an S3 stand-in for the layout only: the bucket exists (HEAD 200), every write fails (503),
  // so the upload's row stays on the page with its status
  const store = http.createServer((req, res) => {
    res.statusCode = req.method === 'HEAD' ? 200 : 503;
    res.end();
  });

  beforeAll(async () => {
    await ensureRendererBuilt();
    lib = await exampleLibrary();
    lib.lib.close();
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    // credentials the upload can sign with (the child inherits them)
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    process.env.AWS_REGION = 'us-east-1';
    served = await startServer(lib.dir);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stop(served?.child);
    lib?.cleanup();
    store.close();
  });

  it('item 51: the task wraps inside its card and the status chip stays inside the card', async () => {
    const task = `open-${'x'.repeat(400)}-settings`;
    const updated = await callApi(served!, 'recordings:update-task', { id: lib.id, task });
    expect(updated.ok, JSON.stringify(updated.error)).toBe(true);
    const port = (store.address() as AddressInfo).port;
    const set = await callApi(served!, 'settings:set', {
      uploadEndpoint: `http://127.0.0.1:${port}`,
    });
    expect(set.ok, JSON.stringify(set.error)).toBe(true);
    const queued = await callApi(served!, 'uploads:enqueue', {
      ids: [lib.id],
      to: 's3://bucket/prefix',
      annotator: 'tester',
    });
    expect(queued.ok, JSON.stringify(queued.error)).toBe(true);

    const page = await browser!.newPage({ viewport: { width: 1024, height: 700 } });
    await page.goto(served!.url);
    await page.goto(`${served!.origin}/#/uploads`);
    const row = page.locator('.upload-row').first();
    await row.waitFor({ timeout: 15_000 });
    const status = row.getByTestId('upload-status');
    const rowBox = (await row.boundingBox())!;
    const statusBox = (await status.boundingBox())!;
    const viewport = page.viewportSize()!;
    // the card fits the window (no horizontal overflow) and holds the whole status chip
    expect(rowBox.x + rowBox.width).toBeLessThanOrEqual(viewport.width);
    expect(statusBox.x).toBeGreaterThanOrEqual(rowBox.x);
    expect(statusBox.x + statusBox.width).toBeLessThanOrEqual(rowBox.x + rowBox.width);
    expect(statusBox.width).toBeGreaterThan(10);
    const scrollWidth = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
          .document.documentElement.scrollWidth,
    );
    expect(scrollWidth).toBeLessThanOrEqual(viewport.width);
    await page.close();
  });
});
