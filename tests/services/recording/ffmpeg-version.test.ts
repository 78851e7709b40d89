// The capture arguments need ffmpeg 5.1 (-fps_mode; -stats_period came in 4.4): an older ffmpeg,
// such as the Windows 4.1 build of @ffmpeg-installer that refuses them under Wine
// (tests/wine/win32.test.ts), is refused by `record` before anything is written, with the fix,
// and failed by `doctor`, instead of an ffmpeg error mid-start.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isCaptureFfmpegVersion,
  MIN_CAPTURE_FFMPEG_VERSION,
} from '../../../src/recorder/screen/ffmpeg-args';
import { runDoctor } from '../../../src/services/system/doctor';
import { runCli } from '../../helpers/cli';
import { startDesktop, type Desktop } from '../../helpers/desktop';

/** An ffmpeg stand-in that says it is `version` and has x11grab and libx264. */
function fakeFfmpeg(dir: string, version: string): string {
  const file = path.join(dir, 'ffmpeg');
  fs.writeFileSync(
    file,
    [
      '#!/bin/sh',
      'case "$*" in',
      `  *-version*) echo "ffmpeg version ${version} Copyright (c) 2000-2018 the FFmpeg developers" ;;`,
      "  *-devices*) printf 'Devices:\\n D. = Demuxing supported\\n --\\n D  x11grab         X11 screen capture, using XCB\\n' ;;",
      "  *-encoders*) printf 'Encoders:\\n ------\\n V....D libx264              libx264 H.264\\n' ;;",
      '  *) ;;',
      'esac',
      '',
    ].join('\n'),
  );
  fs.chmodSync(file, 0o755);
  return file;
}

describe('the oldest ffmpeg recording accepts', () => {
  it.each([
    ['5.1.9-0+deb12u1', true],
    ['n6.1', true],
    ['7.0.2-full_build-www.gyan.dev', true],
    ['N-113093-g0e2d1b3b8f', true],
    ['2024-03-14-git-abc', true],
    ['5.0.1', false],
    ['4.4', false],
    ['4.1', false],
  ])('%s → %s', (version, isAccepted) => {
    expect(isCaptureFfmpegVersion(version)).toBe(isAccepted);
  });
});

describe('record and doctor with ffmpeg 4.1', { timeout: 90_000 }, () => {
  let desktop: Desktop;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-ffmpeg-version-'));
  const lib = path.join(dir, 'library');
  let ffmpeg: string;
  beforeAll(async () => {
    ffmpeg = fakeFfmpeg(dir, '4.1');
    desktop = await startDesktop();
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('doctor fails the ffmpeg check and says which version to install', async () => {
    const report = await runDoctor({ ...desktop.env, CUA_FFMPEG: ffmpeg }, { platform: 'linux' });
    const check = report.checks.find((c) => c.id === 'ffmpeg');
    expect(check).toMatchObject({ ok: false, severity: 'error' });
    expect(check?.summary).toContain(`ffmpeg 4.1 at ${ffmpeg}`);
    expect(check?.fix).toContain(`install ffmpeg ${MIN_CAPTURE_FFMPEG_VERSION} or newer`);
    expect(report.ok).toBe(false);
  });

  it('record refuses before capture and writes nothing', async () => {
    const r = await runCli(['record', '--task', 't', '--duration', '1', '--library', lib], {
      ...desktop.env,
      CUA_FFMPEG: ffmpeg,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('error [FFMPEG_NOT_FOUND]');
    expect(r.stderr).toContain(`is version 4.1: recording needs ${MIN_CAPTURE_FFMPEG_VERSION}`);
    const recordings = path.join(lib, 'recordings');
    expect(fs.existsSync(recordings) ? fs.readdirSync(recordings) : []).toEqual([]);
  });
});
