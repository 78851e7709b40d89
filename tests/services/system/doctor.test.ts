// runDoctor without a display, with missing tools, and against a real Xvfb + D-Bus + AT-SPI;
// formatDoctorReport as a golden string.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { formatDoctorReport, runDoctor } from '../../../src/services/system/doctor';
import type { DoctorCheck, DoctorCheckId, DoctorReport } from '../../../src/services/system/doctor';

const AT_SPI_LAUNCHER = '/usr/libexec/at-spi-bus-launcher';

/** A minimal session-bus configuration: one socket, allow everything, no activatable services. */
function busConfig(address: string): string {
  return [
    '<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"',
    ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">',
    '<busconfig>',
    '  <type>session</type>',
    `  <listen>${address}</listen>`,
    '  <policy context="default">',
    '    <allow send_destination="*" eavesdrop="true"/>',
    '    <allow eavesdrop="true"/>',
    '    <allow own="*"/>',
    '  </policy>',
    '</busconfig>',
    '',
  ].join('\n');
}

function commandExists(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

function check(report: DoctorReport, id: DoctorCheckId): DoctorCheck {
  const found = report.checks.find((c) => c.id === id);
  expect(found, `check ${id}`).toBeDefined();
  return found!;
}

/** The environment without any display or session bus. */
function bareEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.XDG_SESSION_TYPE;
  delete env.DBUS_SESSION_BUS_ADDRESS;
  delete env.CUA_FFMPEG;
  return env;
}

async function waitFor(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) {
      throw new Error(`${what} did not come up within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopProcess(pid: number | undefined): Promise<void> {
  if (pid === undefined) {
    return;
  }
  const isAlive = (): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!isAlive()) {
    return;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 2_000;
  while (isAlive() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (isAlive()) {
    process.kill(pid, 'SIGKILL');
  }
}

describe('runDoctor without a desktop', () => {
  let tempDir = '';

  beforeAll(async () => {
    tempDir = await mkdtemp(path.join(os.tmpdir(), 'cua-doctor-'));
  });

  afterAll(async () => {
    await rm(tempDir, { recursive: true, force: true });
  });

  it('fails the display check with a fix when DISPLAY is unset', async () => {
    const report = await runDoctor(bareEnv(), { platform: 'linux' });
    expect(report.ok).toBe(false);
    const display = check(report, 'display');
    expect(display).toMatchObject({ ok: false, severity: 'error' });
    expect(display.summary).toContain('DISPLAY is not set');
    expect(display.fix).toContain('Xvfb :99');
    expect(display.fix).toContain('export DISPLAY=:99');
    expect(check(report, 'xrecord')).toMatchObject({ ok: false, severity: 'error' });
    expect(check(report, 'xtest')).toMatchObject({ ok: false, severity: 'warning' });
    // ffmpeg does not depend on the display
    expect(check(report, 'ffmpeg').ok).toBe(true);
    expect(check(report, 'x11grab').ok).toBe(true);
    expect(check(report, 'libx264').ok).toBe(true);
    const atspi = check(report, 'atspi');
    expect(atspi).toMatchObject({ ok: false, severity: 'warning' });
    expect(atspi.fix).toContain('at-spi2-core');
    expect(atspi.fix).toContain('at-spi-bus-launcher');
    expect(report.checks.map((c) => c.id)).toEqual([
      'session',
      'display',
      'xrecord',
      'xtest',
      'ffmpeg',
      'x11grab',
      'libx264',
      'atspi',
    ]);
    const text = formatDoctorReport(report);
    expect(text).toContain('✗ display');
    expect(text).toContain('! atspi');
    expect(text).toContain('✓ ffmpeg');
  });

  it('reports a DISPLAY nobody answers on', async () => {
    const display = `:${5000 + Math.floor(Math.random() * 1000)}`;
    const report = await runDoctor({ ...bareEnv(), DISPLAY: display }, { platform: 'linux' });
    const result = check(report, 'display');
    expect(result.ok).toBe(false);
    expect(result.summary).toContain(`X display ${display} does not answer`);
    expect(result.fix).toContain(`DISPLAY=${display}`);
  });

  it('names the packages when xdpyinfo, dbus-send and ffmpeg are missing', async () => {
    const emptyBin = path.join(tempDir, 'empty-bin');
    await mkdir(emptyBin, { recursive: true });
    const env = {
      ...bareEnv(),
      PATH: emptyBin,
      DISPLAY: ':0',
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${tempDir}/no-bus`,
    };
    const report = await runDoctor(env, {
      platform: 'linux',
      ffmpeg: { locateStaticBinary: () => null },
    });
    expect(check(report, 'display').fix).toContain('apt-get install x11-utils');
    expect(check(report, 'atspi').fix).toContain('apt-get install dbus-bin');
    const ffmpeg = check(report, 'ffmpeg');
    expect(ffmpeg).toMatchObject({ ok: false, severity: 'error' });
    expect(ffmpeg.fix).toBe('apt-get install ffmpeg, or set CUA_FFMPEG=/path/to/ffmpeg');
    expect(check(report, 'x11grab').summary).toBe('not checked: no usable ffmpeg');
  });

  it('says to fix CUA_FFMPEG when it points nowhere', async () => {
    const missing = path.join(tempDir, 'nope', 'ffmpeg');
    const report = await runDoctor({ ...bareEnv(), CUA_FFMPEG: missing }, { platform: 'linux' });
    const ffmpeg = check(report, 'ffmpeg');
    expect(ffmpeg.ok).toBe(false);
    expect(ffmpeg.summary).toContain(missing);
    expect(ffmpeg.fix).toContain('fix or unset CUA_FFMPEG');
  });

  it('reports the ffmpeg source, version and ffprobe', async () => {
    const binary = await resolveFfmpeg();
    const linkDir = path.join(tempDir, 'via-env');
    await mkdir(linkDir, { recursive: true });
    const link = path.join(linkDir, 'ffmpeg');
    await symlink(binary.path, link);
    const report = await runDoctor({ ...bareEnv(), CUA_FFMPEG: link }, { platform: 'linux' });
    expect(check(report, 'ffmpeg')).toEqual({
      id: 'ffmpeg',
      ok: true,
      severity: 'error',
      summary: `ffmpeg ${binary.version} at ${link} (from CUA_FFMPEG); ffprobe ${binary.ffprobePath}`,
    });
  });

  it('checks the library folder: writable, creatable, or blocked by a file', async () => {
    const writable = await runDoctor(bareEnv(), { libraryDir: tempDir });
    expect(check(writable, 'library')).toMatchObject({ ok: true });

    const creatable = await runDoctor(bareEnv(), { libraryDir: path.join(tempDir, 'a', 'b') });
    const created = check(creatable, 'library');
    expect(created.ok).toBe(true);
    expect(created.summary).toContain('does not exist yet');
    expect(existsSync(path.join(tempDir, 'a'))).toBe(false);

    const file = path.join(tempDir, 'a-file');
    await writeFile(file, 'x');
    const blocked = check(await runDoctor(bareEnv(), { libraryDir: file }), 'library');
    expect(blocked).toMatchObject({ ok: false, severity: 'error' });
    expect(blocked.fix).toContain('choose another library folder');

    const underFile = check(
      await runDoctor(bareEnv(), { libraryDir: path.join(file, 'sub') }),
      'library',
    );
    expect(underFile.ok).toBe(false);
    expect(underFile.fix).toContain('mkdir -p');
  });

  it('checks the capture device of each OS, and no X11 or AT-SPI elsewhere', async () => {
    const mac = await runDoctor(bareEnv(), { platform: 'darwin' });
    expect(mac.checks.map((c) => c.id)).toEqual(['ffmpeg', 'avfoundation', 'libx264']);
    // Debian's ffmpeg (found here) has no avfoundation: a required check fails with the fix
    expect(check(mac, 'avfoundation')).toMatchObject({ ok: false, severity: 'error' });
    expect(check(mac, 'avfoundation').fix).toContain('brew install ffmpeg');
    expect(mac.ok).toBe(false);

    const win = await runDoctor(bareEnv(), { platform: 'win32' });
    expect(win.checks.map((c) => c.id)).toEqual(['ffmpeg', 'ddagrab', 'gdigrab', 'libx264']);
    expect(check(win, 'ddagrab')).toMatchObject({ ok: false, severity: 'warning' });
    expect(check(win, 'ddagrab').summary).toContain('falls back to gdigrab');
    expect(check(win, 'gdigrab')).toMatchObject({ ok: false, severity: 'error' });
    expect(check(win, 'gdigrab').fix).toContain('winget install Gyan.FFmpeg');

    const noFfmpeg = await runDoctor(
      { ...bareEnv(), PATH: '' },
      {
        platform: 'win32',
        ffmpeg: { locateStaticBinary: () => null },
      },
    );
    expect(noFfmpeg.checks.map((c) => `${c.id}:${c.summary.slice(0, 11)}`)).toEqual([
      expect.stringMatching(/^ffmpeg:/),
      'ddagrab:not checked',
      'gdigrab:not checked',
      'libx264:not checked',
    ]);
  });

  it('fails the session check in a Wayland session, even with an X DISPLAY', async () => {
    const report = await runDoctor(
      { ...bareEnv(), XDG_SESSION_TYPE: 'wayland', DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-0' },
      { platform: 'linux' },
    );
    const session = check(report, 'session');
    expect(session).toMatchObject({ ok: false, severity: 'error' });
    expect(session.summary).toContain('[WAYLAND_SESSION]');
    expect(session.summary).toContain('XDG_SESSION_TYPE=wayland');
    expect(session.fix).toContain('"Ubuntu on Xorg"');
    expect(report.ok).toBe(false);
    expect(check(await runDoctor(bareEnv(), { platform: 'linux' }), 'session')).toMatchObject({
      ok: true,
      summary: 'not a Wayland session (XDG_SESSION_TYPE unset)',
    });
  });
});

const hasDesktopTools = ['Xvfb', 'xdpyinfo', 'dbus-daemon', 'dbus-send'].every(commandExists);
if (!hasDesktopTools) {
  console.warn('doctor desktop tests skipped: needs Xvfb, xdpyinfo, dbus-daemon and dbus-send');
}

describe.skipIf(!hasDesktopTools)('runDoctor on a real Xvfb', () => {
  const displayNumber = 150 + Math.floor(Math.random() * 100);
  const display = `:${displayNumber}`;
  let runDir = '';
  let xvfb: ChildProcess | undefined;
  let atspi: ChildProcess | undefined;
  let dbusPid: number | undefined;
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    runDir = await mkdtemp(path.join(os.tmpdir(), 'cua-doctor-desktop-'));
    await mkdir(path.join(runDir, 'xdg'), { recursive: true, mode: 0o700 });
    xvfb = spawn('Xvfb', [display, '-screen', '0', '640x480x24', '-nolisten', 'tcp'], {
      stdio: 'ignore',
    });
    await waitFor(
      `Xvfb ${display}`,
      () => spawnSync('xdpyinfo', ['-display', display], { stdio: 'ignore' }).status === 0,
    );
    // a session bus without service directories, so nothing is auto-activated: the test
    // controls when org.a11y.Bus appears (Debian's session.conf would activate it on demand)
    const busAddress = `unix:path=${runDir}/bus`;
    const configFile = path.join(runDir, 'session.conf');
    await writeFile(configFile, busConfig(busAddress));
    const pidFile = path.join(runDir, 'dbus.pid');
    const dbus = spawnSync('sh', [
      '-c',
      `dbus-daemon --config-file="${configFile}" --fork --print-pid=1 > "${pidFile}"`,
    ]);
    expect(dbus.status, dbus.stderr.toString()).toBe(0);
    dbusPid = Number((await readFile(pidFile, 'utf8')).trim());
    env = {
      ...bareEnv(),
      DISPLAY: display,
      DBUS_SESSION_BUS_ADDRESS: busAddress,
      XDG_RUNTIME_DIR: path.join(runDir, 'xdg'),
    };
  });

  afterAll(async () => {
    await stopProcess(atspi?.pid);
    await stopProcess(dbusPid);
    await stopProcess(xvfb?.pid);
    await rm(runDir, { recursive: true, force: true });
  });

  it('passes display, xrecord and xtest', async () => {
    const report = await runDoctor(env, { platform: 'linux', libraryDir: runDir });
    expect(check(report, 'display')).toEqual({
      id: 'display',
      ok: true,
      severity: 'error',
      summary: `X display ${display} answers (The X.Org Foundation, 640x480)`,
    });
    expect(check(report, 'xrecord').ok).toBe(true);
    expect(check(report, 'xtest').ok).toBe(true);
    expect(report.ok).toBe(true);
  });

  it('warns while the session bus has no AT-SPI, passes once it runs', async () => {
    const before = check(await runDoctor(env, { platform: 'linux' }), 'atspi');
    expect(before).toMatchObject({ ok: false, severity: 'warning' });
    expect(before.summary).toContain('no org.a11y.Bus');
    expect(before.fix).toContain('apt-get install at-spi2-core');

    if (!existsSync(AT_SPI_LAUNCHER)) {
      console.warn(
        `AT-SPI part skipped: ${AT_SPI_LAUNCHER} missing (apt-get install at-spi2-core)`,
      );
      return;
    }
    atspi = spawn(AT_SPI_LAUNCHER, ['--launch-immediately'], { env, stdio: 'ignore' });
    const busAnswers = (): boolean =>
      spawnSync(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.a11y.Bus',
          '/org/a11y/bus',
          'org.a11y.Bus.GetAddress',
        ],
        { env, stdio: 'ignore' },
      ).status === 0;
    await waitFor('the AT-SPI bus', busAnswers);
    const after = check(await runDoctor(env, { platform: 'linux' }), 'atspi');
    expect(after.ok).toBe(true);
    expect(after.summary).toContain(`AT-SPI bus answers at unix:path=${runDir}/xdg/at-spi/bus`);
  });
});

describe('formatDoctorReport', () => {
  it('prints one marked line per check and indents fixes', () => {
    const report: DoctorReport = {
      ok: false,
      platform: 'linux',
      checks: [
        { id: 'display', ok: true, severity: 'error', summary: 'X display :99 answers' },
        {
          id: 'ffmpeg',
          ok: false,
          severity: 'error',
          summary: 'ffmpeg was not found',
          fix: 'apt-get install ffmpeg',
        },
        {
          id: 'atspi',
          ok: false,
          severity: 'warning',
          summary: 'no AT-SPI',
          fix: 'apt-get install at-spi2-core',
        },
      ],
    };
    expect(formatDoctorReport(report)).toBe(
      [
        '✓ display  X display :99 answers',
        '✗ ffmpeg   ffmpeg was not found',
        '    fix: apt-get install ffmpeg',
        '! atspi    no AT-SPI',
        '    fix: apt-get install at-spi2-core',
        '1 required check failed, 1 warning.',
      ].join('\n'),
    );
    expect(formatDoctorReport({ ok: true, platform: 'linux', checks: [report.checks[0]!] })).toBe(
      '✓ display  X display :99 answers\nAll checks passed.',
    );
  });
});
