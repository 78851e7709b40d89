// A recording session with the native-helper adapter whose helper freezes mid-recording: the
// adapter replaces the helper and the session stores the lost span as an `accessibility-gap`
// timeline mark (docs/helper-protocol.md §4). Real parts: Xvfb, ffmpeg, the input hook and the
// fake helper child (tests/fixtures/bin/fake-ax-helper.js).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicNowMs } from '../../../src/recorder/clock';
import { readDisplayInfo } from '../../../src/recorder/display-info';
import { createPlatform } from '../../../src/recorder/platform';
import { createNativeHelperAdapter } from '../../../src/recorder/accessibility/native-helper-process';
import type { RecordingSink, SessionMark } from '../../../src/recorder/session';
import { RecordingSession } from '../../../src/recorder/session';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { REPO_ROOT } from '../../helpers/paths';

const FAKE_HELPER = path.join(REPO_ROOT, 'tests/fixtures/bin/fake-ax-helper.js');

describe('accessibility gaps in a recording session', { timeout: 60_000 }, () => {
  let desktop: Desktop;
  let dir = '';
  beforeAll(async () => {
    desktop = await startDesktop();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-ax-gap-'));
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores the span of a frozen, replaced helper as an accessibility-gap mark', async () => {
    const marks: SessionMark[] = [];
    const sink: RecordingSink = {
      events: () => undefined,
      window: () => undefined,
      element: () => undefined,
      snapshot: () => undefined,
      mark: (m) => marks.push(m),
      segmentStarted: () => undefined,
    };
    const adapter = createNativeHelperAdapter({
      command: process.execPath,
      args: [FAKE_HELPER],
      now: monotonicNowMs,
      requestTimeoutMs: 200,
      stopGraceMs: 200,
      killGraceMs: 200,
    });
    const linux = createPlatform('linux');
    const session = new RecordingSession({
      outputDir: dir,
      display: await readDisplayInfo(desktop.env),
      platform: linux,
      ffmpegPath: (await linux.capture.resolveFfmpeg(desktop.env)).path,
      fps: 5,
      accessibility: adapter,
      sink,
      env: desktop.env,
      inputHookOptions: { shouldCheckPreconditions: false },
    });
    await session.start();
    const frozenPid = adapter.helper?.pid as number;
    const beforeMs = monotonicNowMs();
    // the helper hangs inside an "OS call": this and the next two requests get no answer
    const stuck = await Promise.allSettled([
      adapter.request('freeze'),
      adapter.focusedIsSecure(),
      adapter.elementAt(5, 5),
    ]);
    expect(stuck.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    // the replacement answers
    await expect(adapter.focusedIsSecure()).resolves.toBe(false);
    expect(adapter.helper?.pid).not.toBe(frozenPid);
    const result = await session.stop();
    expect(result.state, String(result.error)).toBe('done');

    const gaps = marks.filter((m) => m.kind === 'accessibility-gap');
    expect(gaps).toHaveLength(1);
    const gap = gaps[0] as SessionMark;
    expect(gap.tMs).toBeGreaterThanOrEqual(beforeMs);
    expect(gap.endMs).toBeGreaterThan(gap.tMs);
    expect(gap.data).toMatchObject({ reason: 'helper-timeouts', isGivenUp: false });
    expect(String(gap.data?.detail)).toMatch(/3 requests in a row got no answer/);
    // stopping the session also ended the frozen helper
    expect(() => process.kill(frozenPid, 0)).toThrow();
  });
});
