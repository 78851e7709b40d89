// Wayland detection (docs/platform-linux.md §1): XDG_SESSION_TYPE=wayland is the signal, also
// when XWayland's DISPLAY is set (x11grab records black there); WAYLAND_DISPLAY alone counts only
// without any X DISPLAY. The Linux platform refuses such a session before capture; the real CLI's
// `record` and `doctor` say so on a working Xvfb display, so only the session type can refuse.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/infra/run-command';
import { createPlatform } from '../../../src/recorder/platform';
import {
  detectWaylandSession,
  refuseWaylandSession,
  WAYLAND_FIX,
} from '../../../src/recorder/platform/wayland';
import { AppError } from '../../../src/shared/errors';
import { runCli } from '../../helpers/cli';
import { startDesktop, type Desktop } from '../../helpers/desktop';

describe('detectWaylandSession', () => {
  it.each([
    [{ XDG_SESSION_TYPE: 'wayland', WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' }, true],
    [{ XDG_SESSION_TYPE: 'Wayland' }, true],
    [{ WAYLAND_DISPLAY: 'wayland-0' }, true],
    [{ WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ' ' }, true],
    // a nested compositor inside an X11 session, or WAYLAND_DISPLAY left over: X works
    [{ XDG_SESSION_TYPE: 'x11', WAYLAND_DISPLAY: 'wayland-1', DISPLAY: ':0' }, false],
    [{ WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' }, false],
    [{ XDG_SESSION_TYPE: 'x11', DISPLAY: ':0' }, false],
    [{ XDG_SESSION_TYPE: 'tty' }, false],
    [{ DISPLAY: ':99' }, false],
    [{}, false],
  ])('%o → %s', (env, isWayland) => {
    expect(detectWaylandSession(env) !== null).toBe(isWayland);
  });

  it('names what it saw and how to get an Xorg session', () => {
    let error: unknown;
    try {
      refuseWaylandSession({ XDG_SESSION_TYPE: 'wayland', DISPLAY: ':0' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    const e = error as AppError;
    expect(e.code).toBe('WAYLAND_SESSION');
    expect(e.message).toContain('XDG_SESSION_TYPE=wayland, DISPLAY=:0 (XWayland)');
    expect(e.message).toContain('black screen');
    expect(e.fix).toBe(WAYLAND_FIX);
    expect(e.fix).toContain('"Ubuntu on Xorg"');
    expect(e.fix).toContain('gear icon');
    expect(e.details).toEqual({ sessionType: 'wayland', waylandDisplay: null, display: ':0' });
  });

  it('is the Linux platform preflight', async () => {
    const linux = createPlatform('linux');
    await expect(linux.preflight?.({ DISPLAY: ':99' })).resolves.toBeUndefined();
    await expect(
      linux.preflight?.({ XDG_SESSION_TYPE: 'wayland', DISPLAY: ':99' }),
    ).rejects.toThrow(/Wayland session/);
  });
});

describe('record and doctor in a Wayland session (real CLI on Xvfb)', { timeout: 90_000 }, () => {
  let desktop: Desktop;
  const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-wayland-'));
  beforeAll(async () => {
    desktop = await startDesktop();
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
    fs.rmSync(lib, { recursive: true, force: true });
  });

  it('record refuses with WAYLAND_SESSION before capture, though the X display answers', async () => {
    // the X display works (XWayland's would too): only the session type can refuse
    const probe = await runCommand('xdpyinfo', ['-display', desktop.env.DISPLAY ?? ''], {
      env: desktop.env,
      timeoutMs: 5000,
    });
    expect(probe.code).toBe(0);
    const r = await runCli(['record', '--task', 't', '--duration', '1', '--library', lib], {
      ...desktop.env,
      XDG_SESSION_TYPE: 'wayland',
      WAYLAND_DISPLAY: 'wayland-0',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error [WAYLAND_SESSION]');
    expect(r.stderr).toContain(`DISPLAY=${desktop.env.DISPLAY} (XWayland)`);
    expect(r.stderr).toContain('"Ubuntu on Xorg"');
    // nothing was written: no recording folder, no ffmpeg started
    const recordings = path.join(lib, 'recordings');
    expect(fs.existsSync(recordings) ? fs.readdirSync(recordings) : []).toEqual([]);
  });

  it('doctor reports the Wayland session as a failed check with the fix', async () => {
    const r = await runCli(['doctor', '--library', lib], {
      ...desktop.env,
      XDG_SESSION_TYPE: 'wayland',
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/✗ session\s+\[WAYLAND_SESSION\] This is a Wayland session/);
    expect(r.stdout).toContain('fix: Log out, click your name on the login screen');
    // the X checks still run and pass on the Xvfb display
    expect(r.stdout).toMatch(/✓ display/);

    const x11 = await runCli(['doctor', '--library', lib], {
      ...desktop.env,
      XDG_SESSION_TYPE: 'x11',
    });
    expect(x11.stdout).toMatch(/✓ session\s+x11 session \(not Wayland\)/);
  });
});
