// Benchmark: the review UI at scale in Debian Chromium (playwright-core) against a real
// `cua-annotator serve` child. The library (made straight through the store) holds 10,000
// recordings, the newest with 2,000 steps, 200,000 raw events, a window timeline and element
// records. Prints, median of BENCH_RUNS (default 5) fresh page loads after a discarded one:
//   - recording page: from navigation to its URL until the step list shows, and until a click
//     on a step selects it (the page answers input); aim < 1 s;
//   - library page: from navigation until the first rows show; aim < 0.5 s;
//   - the server's `recordings:get` / `recordings:list` answers: time and JSON size.
// The renderer is built from the current sources into a temp folder first (BENCH_RENDERER=DIR
// serves an existing build instead).
//   npx tsx bench/review-scale.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { ActionCall, RawEvent, Step } from '../src/shared/domain';
import { openLibrary } from '../src/services/library/library';
import { insertAxRecords, insertEvents, insertWindows, replaceSteps } from '../src/store';
import { launchChromium } from '../tests/e2e/chromium';
import { callApi, run, startServer, stop } from '../tests/e2e/serve';
import { REPO_ROOT } from '../tests/helpers/paths';
import { makeRecording, syntheticEvents } from '../tests/helpers/store';

const RECORDINGS = Number(process.env.BENCH_RECORDINGS ?? 10_000);
const STEPS = Number(process.env.BENCH_STEPS ?? 2000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const T0 = 1_700_000_000_000;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-review-scale-'));
const libraryDir = path.join(work, 'library');

/** A step of the big recording: a mix of clicks, typing, keys, scrolls and drags. */
function benchStep(i: number, events: readonly RawEvent[]): Step {
  const per = events.length / STEPS;
  const first = Math.floor(i * per);
  const last = Math.min(events.length - 1, Math.floor((i + 1) * per) - 1);
  const startMs = events[first]?.tMs ?? 0;
  const endMs = events[last]?.tMs ?? startMs;
  const x = 0.1 + ((i * 37) % 80) / 100;
  const y = 0.1 + ((i * 53) % 80) / 100;
  const kinds = ['click', 'click', 'write', 'click', 'hotkey', 'scroll', 'click', 'dragTo'];
  const kind = kinds[i % kinds.length] as Step['kind'];
  const calls: ActionCall[] =
    kind === 'write'
      ? [{ name: 'write', args: { message: `typed text number ${i}` } }]
      : kind === 'hotkey'
        ? [{ name: 'hotkey', args: { keys: ['ctrl', 's'] } }]
        : kind === 'scroll'
          ? [{ name: 'scroll', args: { clicks: { int: -3 }, x: { float: x }, y: { float: y } } }]
          : kind === 'dragTo'
            ? [
                { name: 'moveTo', args: { x: { float: x }, y: { float: y } } },
                { name: 'dragTo', args: { x: { float: y }, y: { float: x }, button: 'left' } },
              ]
            : [{ name: 'click', args: { x: { float: x }, y: { float: y } } }];
  const pointer = kind !== 'write' && kind !== 'hotkey';
  return {
    id: `bench:${i}`,
    index: i,
    kind,
    description: `${kind} number ${i}`,
    label: `Step ${i}: do the ${kind} on the settings window`,
    calls,
    startMs,
    endMs,
    eventStartIdx: first,
    coordinate: pointer ? { x: Math.round(x * 1280), y: Math.round(y * 800) } : null,
    preMove: null,
    target: null,
    extra: {},
    diagnostics: i % 50 === 0 ? ['a note on this step'] : [],
  };
}

/** Fills the library: RECORDINGS recordings, the newest one big. Returns the big one's id. */
function fillLibrary(): string {
  const lib = openLibrary(libraryDir);
  let bigId = '';
  lib.db.transaction(() => {
    for (let i = 0; i < RECORDINGS - 1; i += 1) {
      makeRecording(lib.db, {
        task: `Task ${i}: open the settings and change option ${i % 97}`,
        status: 'complete',
        durationMs: (i * 7919) % 600_000,
        nowMs: T0 + i * 60_000,
      });
    }
    const events = syntheticEvents(EVENTS);
    const { seq, id } = makeRecording(lib.db, {
      task: 'The big one: 2,000 steps over 200,000 events',
      durationMs: Math.round(events.at(-1)?.tMs ?? 0),
      nowMs: T0 + RECORDINGS * 60_000,
    });
    bigId = id;
    replaceSteps(
      lib.db,
      seq,
      Array.from({ length: STEPS }, (_, i) => benchStep(i, events)),
      'bench',
    );
    insertEvents(lib.db, seq, events);
    const durationMs = events.at(-1)?.tMs ?? 0;
    insertWindows(
      lib.db,
      seq,
      Array.from({ length: 200 }, (_, k) => ({
        tMs: (k * durationMs) / 200,
        title: `Window ${k % 7} — Settings`,
        app: 'settings',
        pid: 1000 + (k % 7),
        bounds: { x: 0, y: 0, width: 1280, height: 800 },
        windowId: `w${k % 7}`,
      })),
    );
    insertAxRecords(
      lib.db,
      seq,
      Array.from({ length: STEPS }, (_, k) => {
        const step = benchStep(k, events);
        return {
          tMs: step.startMs,
          kind: 'element' as const,
          source: 'atspi',
          x: step.coordinate?.x ?? null,
          y: step.coordinate?.y ?? null,
          nodeCount: 3,
          rootName: 'Settings',
          treeJson: JSON.stringify({
            path: [
              { role: 'push button', name: `Option ${k % 97}` },
              { role: 'panel', name: '' },
              { role: 'frame', name: 'Settings' },
            ],
          }),
          note: null,
        };
      }),
    );
  })();
  lib.close();
  return bigId;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const fmt = (values: number[]) =>
  `${median(values).toFixed(0).padStart(5)} ms  (runs ${values.map((v) => v.toFixed(0)).join(', ')})`;

/** Where a page load's time went, ms from the navigation start (the page's own clock). */
type Phases = {
  html: number;
  scripts: number;
  apiStart: number;
  apiEnd: number;
  /** When the first matching element entered the DOM (a MutationObserver in the page). */
  inDom: number;
};

// Installed in every page before its scripts: notes when the first step card / library row
// enters the DOM, on the page's clock (free of the test driver's polling delay). A string, not a
// function: tsx would wrap a function's inner names in a helper the page does not have.
const FIRST_SEEN_SCRIPT = `
  globalThis.__firstSeen = {};
  new MutationObserver(() => {
    for (const sel of ['[data-testid=step-card]', '[data-testid=library-row]']) {
      if (!(sel in globalThis.__firstSeen) && document.querySelector(sel)) {
        globalThis.__firstSeen[sel] = performance.now();
      }
    }
  }).observe(document, { childList: true, subtree: true });
`;

async function pagePhases(page: Page, method: string, selector: string): Promise<Phases> {
  return page.evaluate(
    ([m, sel]) => {
      type Timing = { name: string; startTime: number; responseEnd: number };
      const perf = (
        globalThis as unknown as {
          performance: { now(): number; getEntriesByType(t: string): unknown[] };
        }
      ).performance;
      const nav = perf.getEntriesByType('navigation')[0] as Timing & {
        domContentLoadedEventEnd: number;
      };
      const api = (perf.getEntriesByType('resource') as Timing[]).filter((e) =>
        e.name.endsWith(`/api/${m}`),
      );
      const first = api[0];
      return {
        html: nav.responseEnd,
        scripts: nav.domContentLoadedEventEnd,
        apiStart: first?.startTime ?? NaN,
        apiEnd: first?.responseEnd ?? NaN,
        inDom:
          (globalThis as unknown as { __firstSeen: Record<string, number> }).__firstSeen[sel] ??
          NaN,
      };
    },
    [method, selector] as const,
  );
}

const phaseLine = (list: Phases[]) => {
  const m = (f: (p: Phases) => number) => median(list.map(f)).toFixed(0);
  return `page clock, ms from navigation start: HTML ${m((p) => p.html)}, scripts run ${m((p) => p.scripts)}, API call ${m((p) => p.apiStart)}–${m((p) => p.apiEnd)}, in the DOM ${m((p) => p.inDom)}`;
};

async function timeRecordingPage(page: Page, origin: string, id: string) {
  await page.goto('about:blank');
  const t0 = performance.now();
  await page.goto(`${origin}/#/recording/${encodeURIComponent(id)}`);
  await page.locator('[data-testid=step-card]').first().waitFor({ timeout: 60_000 });
  const shown = performance.now() - t0;
  const phases = await pagePhases(page, 'recordings:get', '[data-testid=step-card]');
  await page.locator('[data-testid=step-card]').nth(1).click({ timeout: 60_000 });
  await page
    .locator('[data-testid=step-card][aria-selected=true][data-step-id="bench:1"]')
    .waitFor({ timeout: 60_000 });
  const interactive = performance.now() - t0;
  const cards = await page.locator('[data-testid=step-card]').count();
  return { shown, interactive, cards, phases };
}

async function timeLibraryPage(page: Page, origin: string) {
  await page.goto('about:blank');
  const t0 = performance.now();
  await page.goto(`${origin}/#/`);
  await page.locator('[data-testid=library-row]').first().waitFor({ timeout: 60_000 });
  const shown = performance.now() - t0;
  const phases = await pagePhases(page, 'recordings:list', '[data-testid=library-row]');
  const rows = await page.locator('[data-testid=library-row]').count();
  return { shown, rows, phases };
}

/** With BENCH_PROFILE=1: a CPU profile of one more recording-page load, top self times. */
async function profileRecordingPage(page: Page, origin: string, id: string): Promise<void> {
  type Node = {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
  };
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await page.goto('about:blank');
  await cdp.send('Profiler.start');
  await page.goto(`${origin}/#/recording/${encodeURIComponent(id)}`);
  await page.locator('[data-testid=step-card]').first().waitFor({ timeout: 60_000 });
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as {
    profile: { nodes: Node[]; startTime: number; endTime: number };
  };
  const total = profile.nodes.reduce((n, x) => n + (x.hitCount ?? 0), 0);
  const self = new Map<string, number>();
  for (const n of profile.nodes) {
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}:${f.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (n.hitCount ?? 0));
  }
  const ms = (profile.endTime - profile.startTime) / 1000;
  console.log(`  CPU profile of one recording-page load (${ms.toFixed(0)} ms, top self time):`);
  for (const [key, hits] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`    ${((hits / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
  }
}

const fill0 = performance.now();
const bigId = fillLibrary();
const fillS = (performance.now() - fill0) / 1000;

let rendererDir = process.env.BENCH_RENDERER;
if (!rendererDir) {
  rendererDir = path.join(work, 'renderer');
  await run(process.execPath, [
    path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
    'build',
    '-c',
    'vite.renderer.config.ts',
    '--outDir',
    rendererDir,
    '--emptyOutDir',
  ]);
}
process.env.CUA_E2E_RENDERER = path.resolve(rendererDir);

const served = await startServer(libraryDir);
const browser = await launchChromium();
try {
  // the server's answers alone (the first call warms the statements)
  const apiTimes: Record<string, { ms: number[]; bytes: number }> = {};
  for (const [method, payload] of [
    ['recordings:get', { id: bigId }],
    ['recordings:list', {}],
  ] as const) {
    const ms: number[] = [];
    let bytes = 0;
    for (let r = 0; r <= RUNS; r += 1) {
      const t0 = performance.now();
      const response = await fetch(`${served.origin}/api/${method}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${served.token}`,
        },
        body: JSON.stringify(payload),
      });
      const text = await response.text();
      if (r > 0) {
        ms.push(performance.now() - t0);
      }
      bytes = Buffer.byteLength(text);
      if (!response.ok) {
        throw new Error(`${method}: ${response.status} ${text.slice(0, 300)}`);
      }
    }
    apiTimes[method] = { ms, bytes };
  }
  const check = await callApi(served, 'recordings:get', { id: bigId });
  const dtoSteps = (check.value as { steps: Record<string, unknown>[] } | undefined)?.steps ?? [];
  const stepCount = dtoSteps.length;
  // where the bytes of `recordings:get` go: JSON size of each step field over all steps
  const fieldBytes = new Map<string, number>();
  for (const step of dtoSteps) {
    for (const [key, value] of Object.entries(step)) {
      fieldBytes.set(key, (fieldBytes.get(key) ?? 0) + JSON.stringify(value ?? null).length);
    }
  }
  const biggest = [...fieldBytes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([k, n]) => `${k} ${(n / 1024).toFixed(0)}`)
    .join(', ');

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript({ content: FIRST_SEEN_SCRIPT });
  const page = await context.newPage();
  await page.goto(served.url); // sets the token cookie
  await page.locator('[data-testid=library-row]').first().waitFor({ timeout: 60_000 });

  const recordingShown: number[] = [];
  const recordingInteractive: number[] = [];
  let cards = 0;
  const libraryShown: number[] = [];
  let rows = 0;
  const recordingPhases: Phases[] = [];
  const libraryPhases: Phases[] = [];
  for (let r = 0; r <= RUNS; r += 1) {
    const rec = await timeRecordingPage(page, served.origin, bigId);
    const libPage = await timeLibraryPage(page, served.origin);
    if (r > 0) {
      recordingShown.push(rec.shown);
      recordingInteractive.push(rec.interactive);
      libraryShown.push(libPage.shown);
      recordingPhases.push(rec.phases);
      libraryPhases.push(libPage.phases);
    }
    cards = rec.cards;
    rows = libPage.rows;
  }
  if (process.env.BENCH_PROFILE === '1') {
    await profileRecordingPage(page, served.origin, bigId);
  }
  await context.close();

  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(
    `review UI at scale (Chromium ${browser.version()}, cua-annotator serve; library of ` +
      `${RECORDINGS.toLocaleString('en')} recordings filled in ${fillS.toFixed(1)} s; the big one ` +
      `${stepCount} steps, ${EVENTS.toLocaleString('en')} events); median of ${RUNS} runs after a ` +
      `discarded one; ${os.cpus().length} cores, load ${load}`,
  );
  for (const [method, { ms, bytes }] of Object.entries(apiTimes)) {
    console.log(
      `  ${`${method} (server)`.padEnd(36)} ${fmt(ms)}, ${(bytes / 1024).toFixed(0)} KiB JSON`,
    );
  }
  console.log(`    (step fields, KiB: ${biggest})`);
  console.log(`  ${'recording page: steps shown'.padEnd(36)} ${fmt(recordingShown)}`);
  console.log(
    `  ${'recording page: a click selects'.padEnd(36)} ${fmt(recordingInteractive)}  aim < 1000 ms; ${cards} step cards in the DOM`,
  );
  console.log(
    `  ${'recording page: cards in the DOM'.padEnd(36)} ${fmt(recordingPhases.map((p) => p.inDom))}  (page clock)`,
  );
  console.log(`    (${phaseLine(recordingPhases)})`);
  console.log(
    `  ${'library page: first rows shown'.padEnd(36)} ${fmt(libraryShown)}  aim < 500 ms; ${rows} rows in the DOM`,
  );
  console.log(
    `  ${'library page: rows in the DOM'.padEnd(36)} ${fmt(libraryPhases.map((p) => p.inDom))}  (page clock)`,
  );
  console.log(`    (${phaseLine(libraryPhases)})`);
} finally {
  await browser.close();
  await stop(served.child);
  fs.rmSync(work, { recursive: true, force: true });
}
