// resolveFfmpeg against the real (Debian) ffmpeg: resolution order, errors, capability parsing.
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearFfmpegBinaryCache,
  hasEncoder,
  hasFilter,
  hasInputDevice,
  listAvfoundationDevices,
  parseAvfoundationDevices,
  parseCaptureDevices,
  parseFfmpegVersion,
  resolveFfmpeg,
} from '../../../src/infra/ffmpeg/binary';
import type { FfmpegBinary } from '../../../src/infra/ffmpeg/binary';
import { AppError } from '../../../src/shared/errors';

const noStatic = { locateStaticBinary: () => null };

async function expectNotFound(promise: Promise<unknown>): Promise<AppError> {
  let error: unknown = null;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('FFMPEG_NOT_FOUND');
  return error as AppError;
}

describe('resolveFfmpeg', () => {
  let tempDir = '';
  let onPath: FfmpegBinary;

  beforeAll(async () => {
    tempDir = await mkdtemp(path.join(os.tmpdir(), 'cua-ffmpeg-binary-'));
    onPath = await resolveFfmpeg({ PATH: process.env.PATH }, noStatic);
  });

  afterAll(async () => {
    await rm(tempDir, { recursive: true, force: true });
  });

  it('finds ffmpeg on PATH with its version, ffprobe and capabilities', () => {
    expect(onPath.source).toBe('path');
    expect(path.isAbsolute(onPath.path)).toBe(true);
    expect(onPath.version).toMatch(/^\S+$/);
    expect(onPath.ffprobePath).toBe(path.join(path.dirname(onPath.path), 'ffprobe'));
    // Debian's build (docs/platform-linux.md §5)
    expect(onPath.hasX11grab).toBe(true);
    expect(onPath.hasLibx264).toBe(true);
    // read from -devices and -filters: Debian's build captures through X11 only
    expect(onPath.captureDevices).toEqual({
      x11grab: true,
      avfoundation: false,
      gdigrab: false,
      ddagrab: false,
    });
  });

  it('fails to list avfoundation devices on a build without it, with a coded error', async () => {
    const error = (await listAvfoundationDevices(onPath.path).catch((e: unknown) => e)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('FFMPEG_FAILED');
    expect(error.message).toContain('listed no avfoundation devices');
    // ffmpeg's own complaint is quoted
    expect(error.message).toMatch(/avfoundation/i);
    expect(error.fix).toContain('brew install ffmpeg');
  });

  it('prefers CUA_FFMPEG when it names a real binary', async () => {
    const binary = await resolveFfmpeg(
      { CUA_FFMPEG: onPath.path, PATH: '' },
      { locateStaticBinary: () => '/should/not/be/used' },
    );
    expect(binary).toEqual({ ...onPath, source: 'env' });
  });

  it('reports a CUA_FFMPEG that does not exist instead of falling back', async () => {
    const missing = path.join(tempDir, 'no-such-ffmpeg');
    const error = await expectNotFound(
      resolveFfmpeg({ CUA_FFMPEG: missing, PATH: process.env.PATH }, noStatic),
    );
    expect(error.message).toContain(missing);
    expect(error.message).toContain('does not exist');
    expect(error.message).toContain('CUA_FFMPEG');
  });

  it('reports a CUA_FFMPEG that is not executable, a folder, or not ffmpeg', async () => {
    const plain = path.join(tempDir, 'plain-file');
    await writeFile(plain, 'not a program');
    await chmod(plain, 0o644);
    const notExecutable = await expectNotFound(resolveFfmpeg({ CUA_FFMPEG: plain }, noStatic));
    expect(notExecutable.message).toContain('is not executable');

    const folder = await expectNotFound(resolveFfmpeg({ CUA_FFMPEG: tempDir }, noStatic));
    expect(folder.message).toContain('is not a file');

    const fake = path.join(tempDir, 'fake-ffmpeg');
    await writeFile(fake, '#!/bin/sh\necho "hello from a fake"\n');
    await chmod(fake, 0o755);
    const notFfmpeg = await expectNotFound(resolveFfmpeg({ CUA_FFMPEG: fake }, noStatic));
    expect(notFfmpeg.message).toContain('did not run as ffmpeg');
    expect(notFfmpeg.message).toContain('hello from a fake');
  });

  it('fails with what was tried and how to fix it when nothing is found', async () => {
    const error = await expectNotFound(resolveFfmpeg({ PATH: '' }, noStatic));
    expect(error.message).toContain('CUA_FFMPEG: not set');
    expect(error.message).toContain('ffmpeg-static: package not installed');
    expect(error.message).toContain('PATH: empty');
    expect(error.message).toContain('apt-get install ffmpeg');
    expect(error.message).toContain('CUA_FFMPEG=/path/to/ffmpeg');

    const emptyDir = path.join(tempDir, 'empty-bin');
    await mkdir(emptyDir, { recursive: true });
    const withDirs = await expectNotFound(
      resolveFfmpeg({ PATH: emptyDir }, { ...noStatic, platform: 'linux' }),
    );
    expect(withDirs.message).toContain(`no executable 'ffmpeg' in ${emptyDir}`);
  });

  it('uses the ffmpeg-static binary before PATH, with ffprobe from PATH', async () => {
    const staticDir = path.join(tempDir, 'static');
    await mkdir(staticDir, { recursive: true });
    const staticBinary = path.join(staticDir, 'ffmpeg');
    await symlink(onPath.path, staticBinary);
    const binary = await resolveFfmpeg(
      { PATH: process.env.PATH },
      { locateStaticBinary: () => staticBinary },
    );
    expect(binary.source).toBe('ffmpeg-static');
    expect(binary.path).toBe(staticBinary);
    expect(binary.version).toBe(onPath.version);
    expect(binary.ffprobePath).toBe(onPath.ffprobePath);
  });

  it('skips an ffmpeg-static path whose file is missing', async () => {
    const binary = await resolveFfmpeg(
      { PATH: process.env.PATH },
      { locateStaticBinary: () => path.join(tempDir, 'gone', 'ffmpeg') },
    );
    expect(binary.source).toBe('path');
  });

  it('copes with the optional ffmpeg-static package being absent', async () => {
    let isStaticInstalled = true;
    try {
      createRequire(import.meta.url).resolve('ffmpeg-static');
    } catch {
      isStaticInstalled = false;
    }
    clearFfmpegBinaryCache();
    const binary = await resolveFfmpeg({ PATH: process.env.PATH });
    expect(binary.source).toBe(isStaticInstalled ? 'ffmpeg-static' : 'path');
  });
});

describe('ffmpeg output parsers', () => {
  it('reads the version from the first line of -version', () => {
    expect(
      parseFfmpegVersion('ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026 the FFmpeg\n'),
    ).toBe('5.1.9-0+deb12u1');
    expect(
      parseFfmpegVersion(
        'ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/  Copyright',
      ),
    ).toBe('N-47683-g0e8eb07980-static');
    expect(parseFfmpegVersion('hello\n')).toBeNull();
  });

  it('finds input devices only where demuxing is supported', () => {
    const devices = [
      'Devices:',
      ' D. = Demuxing supported',
      ' .E = Muxing supported',
      ' --',
      ' DE alsa            ALSA audio output',
      '  E sdl,sdl2        SDL2 output device',
      ' D  x11grab         X11 screen capture, using XCB',
    ].join('\n');
    expect(hasInputDevice(devices, 'x11grab')).toBe(true);
    expect(hasInputDevice(devices, 'alsa')).toBe(true);
    expect(hasInputDevice(devices, 'sdl2')).toBe(false);
    expect(hasInputDevice(devices, 'gdigrab')).toBe(false);
  });

  it('finds encoders by exact name', () => {
    const encoders = [
      'Encoders:',
      ' V..... = Video',
      ' ------',
      ' V....D libx264              libx264 H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10 (codec h264)',
      ' V....D libx264rgb           libx264 H.264 RGB (codec h264)',
    ].join('\n');
    expect(hasEncoder(encoders, 'libx264')).toBe(true);
    expect(hasEncoder(encoders, 'libx265')).toBe(false);
    expect(hasEncoder(' V....D libx264rgb   x\n', 'libx264')).toBe(false);
  });
});

const fixture = (name: string): string =>
  readFileSync(path.join(import.meta.dirname, 'fixtures', name), 'utf8');

describe('capture devices of a build', () => {
  it('reads them from -devices and -filters output of each OS', () => {
    const none = 'Filters:\n';
    // recorded from Debian 12's ffmpeg 5.1.9
    expect(parseCaptureDevices(fixture('devices-debian-5.1.txt'), none)).toEqual({
      x11grab: true,
      avfoundation: false,
      gdigrab: false,
      ddagrab: false,
    });
    // a Windows full build: gdigrab as a device, ddagrab as a source filter
    expect(
      parseCaptureDevices(fixture('devices-windows-gyan.txt'), fixture('filters-windows-gyan.txt')),
    ).toEqual({ x11grab: false, avfoundation: false, gdigrab: true, ddagrab: true });
    // a Windows build older than 6.0: gdigrab only
    expect(parseCaptureDevices(fixture('devices-windows-gyan.txt'), none)).toMatchObject({
      gdigrab: true,
      ddagrab: false,
    });
    // Homebrew's macOS build (with x11grab for XQuartz)
    expect(parseCaptureDevices(fixture('devices-macos-brew.txt'), none)).toEqual({
      x11grab: true,
      avfoundation: true,
      gdigrab: false,
      ddagrab: false,
    });
  });

  it('finds filters by exact name, sources and plain filters alike', () => {
    const filters = fixture('filters-windows-gyan.txt');
    expect(hasFilter(filters, 'ddagrab')).toBe(true);
    expect(hasFilter(filters, 'hwdownload')).toBe(true);
    expect(hasFilter(filters, 'ddagra')).toBe(false);
    expect(hasFilter(filters, 'gdigrab')).toBe(false);
    // the legend lines are not filters
    expect(hasFilter(filters, 'Timeline')).toBe(false);
  });
});

describe('avfoundation device list', () => {
  it('numbers screens after the cameras and keeps screen N apart from its device index', () => {
    const list = parseAvfoundationDevices(fixture('avfoundation-list-devices.txt'));
    expect(list.video).toEqual([
      { index: 0, name: 'FaceTime HD Camera' },
      { index: 1, name: 'OBS Virtual Camera' },
      { index: 2, name: 'Capture screen 0' },
      { index: 3, name: 'Capture screen 1' },
    ]);
    expect(list.audio).toEqual([
      { index: 0, name: 'MacBook Pro Microphone' },
      { index: 1, name: 'BlackHole 2ch' },
    ]);
    expect(list.screens).toEqual([
      { screen: 0, index: 2 },
      { screen: 1, index: 3 },
    ]);
  });

  it('finds nothing in output without the device sections', () => {
    expect(parseAvfoundationDevices('Unknown input format: avfoundation\n')).toEqual({
      video: [],
      audio: [],
      screens: [],
    });
    // an audio device named like a screen is not a screen
    const audioOnly = parseAvfoundationDevices(
      '[x] AVFoundation audio devices:\n[x] [0] Capture screen 0\n',
    );
    expect(audioOnly.screens).toEqual([]);
    expect(audioOnly.audio).toHaveLength(1);
  });
});
