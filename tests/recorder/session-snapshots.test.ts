// The session takes window snapshots through the snapshot policy (src/axtree/snapshot-policy.ts)
// and looks up hover elements only once the pointer rests: a real session (ffmpeg, input hook,
// window tracker on Xvfb with the GTK form) with a counting fake accessibility adapter.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessibilityAdapter, AxContentChange } from '../../src/axtree/adapter';
import type { AxSnapshot } from '../../src/axtree/model';
import { readDisplayInfo } from '../../src/recorder/display-info';
import { createPlatform } from '../../src/recorder/platform';
import { RecordingSession, type RecordingSink } from '../../src/recorder/session';
import { launchGtkForm, type GtkForm } from '../fixtures/apps/gtk-form';
import { startDesktop, type Desktop } from '../helpers/desktop';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fake adapter that counts its queries; `contentEvents` decides its capability. */
function countingAdapter(hasContentEvents: boolean) {
  const counts = { snapshots: 0, elementAt: 0 };
  const contentListeners = new Set<(c: AxContentChange) => void>();
  const adapter: AccessibilityAdapter = {
    start: () =>
      Promise.resolve({
        backend: 'fake',
        capabilities: ['elementAt', 'snapshot', ...(hasContentEvents ? ['contentEvents'] : [])],
      }),
    elementAt: () => {
      counts.elementAt += 1;
      return Promise.resolve(null);
    },
    snapshotFocusedWindow: (): Promise<AxSnapshot> => {
      counts.snapshots += 1;
      return Promise.resolve({
        tMs: 0,
        durationMs: 1,
        root: { role: 'frame', name: 'CUA Test Form', states: [], bounds: null, children: [] },
        nodeCount: 1,
        truncated: false,
      });
    },
    focusedIsSecure: () => Promise.resolve(false),
    onContentChanged: (listener) => {
      contentListeners.add(listener);
      return () => contentListeners.delete(listener);
    },
    stop: () => Promise.resolve(),
  };
  const emitContent = () =>
    contentListeners.forEach((l) => l({ tMs: performance.now(), isFocusedApp: true }));
  return { adapter, counts, emitContent };
}

let desktop: Desktop;
let form: GtkForm;
const dirs: string[] = [];

beforeAll(async () => {
  desktop = await startDesktop();
  form = await launchGtkForm(desktop);
});

afterAll(async () => {
  await form?.close();
  await desktop?.stop();
  dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

async function startSession(adapter: AccessibilityAdapter) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-session-snap-'));
  dirs.push(dir);
  const stored: AxSnapshot[] = [];
  const sink: RecordingSink = {
    events: () => undefined,
    window: () => undefined,
    element: () => undefined,
    snapshot: (s) => stored.push(s),
    mark: () => undefined,
    segmentStarted: () => undefined,
  };
  const session = new RecordingSession({
    outputDir: dir,
    display: await readDisplayInfo(desktop.env),
    platform: createPlatform('linux'),
    ffmpegPath: 'ffmpeg',
    fps: 10,
    accessibility: adapter,
    sink,
    env: desktop.env,
    snapshotSettleMs: 150,
    inputHookOptions: { shouldCheckPreconditions: false },
  });
  await session.start();
  return { session, stored };
}

async function typeKeys(): Promise<void> {
  const { entry } = form.ready.widgets;
  await desktop.run('xdotool', ['mousemove', String(entry.cx), String(entry.cy)]);
  await desktop.run('xdotool', ['type', '--delay', '150', 'abcdefgh']);
}

describe('window snapshots through the snapshot policy', () => {
  it('walks the window in front once, not again for typing, and again after a content change', async () => {
    const fake = countingAdapter(true);
    const { session, stored } = await startSession(fake.adapter);
    try {
      await sleep(1500);
      expect(fake.counts.snapshots).toBe(1); // the window in front at the start
      await typeKeys();
      await sleep(1500);
      expect(fake.counts.snapshots).toBe(1);
      fake.emitContent();
      await sleep(1500);
      expect(fake.counts.snapshots).toBe(2);
      expect(stored).toHaveLength(2);
    } finally {
      await session.stop();
    }
  }, 30_000);

  it('counts input as a change for an adapter without content events', async () => {
    const fake = countingAdapter(false);
    const { session } = await startSession(fake.adapter);
    try {
      await sleep(1500);
      const atStart = fake.counts.snapshots;
      await typeKeys();
      await sleep(1500);
      // settled after the typing (and at most one walk per second while it lasted)
      expect(fake.counts.snapshots).toBeGreaterThan(atStart);
      expect(fake.counts.snapshots - atStart).toBeLessThanOrEqual(3);
    } finally {
      await session.stop();
    }
  }, 30_000);

  it('looks up no hover element while the pointer keeps moving, one once it rests', async () => {
    const fake = countingAdapter(true);
    const { session } = await startSession(fake.adapter);
    try {
      await sleep(500);
      const before = fake.counts.elementAt;
      // 2 s of steady motion, a move every 20 ms (the bench's pace)
      const script =
        'import time\nfrom Xlib import display, X\nfrom Xlib.ext import xtest\n' +
        'd = display.Display()\nfor i in range(100):\n' +
        '    xtest.fake_input(d, X.MotionNotify, x=200 + i * 5, y=300); d.sync(); time.sleep(0.02)\n';
      await desktop.run('/usr/bin/python3', ['-c', script]);
      const whileMoving = fake.counts.elementAt - before;
      await sleep(600);
      expect(whileMoving).toBeLessThanOrEqual(2);
      expect(fake.counts.elementAt - before - whileMoving).toBe(1);
    } finally {
      await session.stop();
    }
  }, 30_000);
});
