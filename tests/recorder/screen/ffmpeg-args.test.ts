// Argument builders for all three OSes: full golden lists (Linux is also run for real in
// ffmpeg-process.test.ts; macOS and Windows lists are checked here only).
import { describe, expect, it } from 'vitest';
import {
  buildCaptureArgs,
  buildFrameFilter,
  buildInputArgs,
  hasFilter,
  pickWindowsSource,
} from '../../../src/recorder/screen/ffmpeg-args';
import type { CaptureArgsOptions } from '../../../src/recorder/screen/ffmpeg-args';
import { AppError } from '../../../src/shared/errors';

/** Everything after the input: identical for every device at 30 fps, ultrafast, crf 23. */
const ENCODE_TAIL_30 = [
  '-fps_mode',
  'cfr',
  '-r',
  '30',
  '-c:v',
  'libx264',
  '-preset',
  'ultrafast',
  '-crf',
  '23',
  '-pix_fmt',
  'yuv420p',
  '-g',
  '30',
  '-movflags',
  '+frag_keyframe+empty_moov+default_base_moof',
  '-flush_packets',
  '1',
  '-f',
  'mp4',
];
const HEAD = [
  '-hide_banner',
  '-nostats',
  '-loglevel',
  'verbose',
  '-progress',
  'pipe:1',
  '-stats_period',
  '0.5',
  '-n',
];
const FILTER_30 = 'fps=30,crop=trunc(iw/2)*2:trunc(ih/2)*2:0:0';

function invalidOption(options: CaptureArgsOptions): AppError {
  try {
    buildCaptureArgs(options);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected buildCaptureArgs to throw');
}

describe('buildCaptureArgs', () => {
  it('captures a whole X screen with the defaults', () => {
    expect(
      buildCaptureArgs({ source: { kind: 'x11grab', display: ':99' }, outputPath: '/r/video.mp4' }),
    ).toEqual([
      ...HEAD,
      '-f',
      'x11grab',
      '-framerate',
      '30',
      '-draw_mouse',
      '1',
      '-i',
      ':99.0',
      '-vf',
      FILTER_30,
      ...ENCODE_TAIL_30,
      '/r/video.mp4',
    ]);
  });

  it('captures one RandR monitor as WxH at +X,Y with custom rate, preset and CRF', () => {
    expect(
      buildCaptureArgs({
        source: {
          kind: 'x11grab',
          display: ':0',
          screen: 1,
          region: { x: 1920, y: 0, width: 1280, height: 1024 },
        },
        outputPath: 'out.mp4',
        fps: 10,
        preset: 'veryfast',
        crf: 28,
        drawMouse: false,
        progressIntervalMs: 1000,
      }),
    ).toEqual([
      '-hide_banner',
      '-nostats',
      '-loglevel',
      'verbose',
      '-progress',
      'pipe:1',
      '-stats_period',
      '1',
      '-n',
      '-f',
      'x11grab',
      '-framerate',
      '10',
      '-draw_mouse',
      '0',
      '-video_size',
      '1280x1024',
      '-i',
      ':0.1+1920,0',
      '-vf',
      'fps=10,crop=trunc(iw/2)*2:trunc(ih/2)*2:0:0',
      '-fps_mode',
      'cfr',
      '-r',
      '10',
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '28',
      '-pix_fmt',
      'yuv420p',
      '-g',
      '10',
      '-movflags',
      '+frag_keyframe+empty_moov+default_base_moof',
      '-flush_packets',
      '1',
      '-f',
      'mp4',
      'out.mp4',
    ]);
  });

  it('captures a macOS screen through avfoundation by name, without audio', () => {
    expect(
      buildCaptureArgs({ source: { kind: 'avfoundation', screen: 1 }, outputPath: 'm.mp4' }),
    ).toEqual([
      ...HEAD,
      '-f',
      'avfoundation',
      '-framerate',
      '30',
      '-capture_cursor',
      '1',
      '-capture_mouse_clicks',
      '0',
      '-pixel_format',
      'bgr0',
      '-use_wallclock_as_timestamps',
      '1',
      '-i',
      'Capture screen 1:none',
      // the same CFR grid and even crop as x11grab
      '-vf',
      FILTER_30,
      ...ENCODE_TAIL_30,
      'm.mp4',
    ]);
    // no cursor, a lighter pixel format, another rate
    expect(
      buildInputArgs({ kind: 'avfoundation', screen: 0, pixelFormat: 'uyvy422' }, 15, false),
    ).toEqual([
      '-f',
      'avfoundation',
      '-framerate',
      '15',
      '-capture_cursor',
      '0',
      '-capture_mouse_clicks',
      '0',
      '-pixel_format',
      'uyvy422',
      '-use_wallclock_as_timestamps',
      '1',
      '-i',
      'Capture screen 0:none',
    ]);
  });

  it('captures a scaled monitor left of and above the primary at its physical size', () => {
    // a 4K monitor at 150 % left of and above a 1920x1080 primary: the helper reports physical
    // pixels (3840x2160 at -3840,-1080), which is what gdigrab's offsets and size take
    const args = buildInputArgs(
      { kind: 'gdigrab', region: { x: -3840, y: -1080, width: 3840, height: 2160 } },
      30,
      true,
    );
    expect(args.slice(args.indexOf('-offset_x'), args.indexOf('-i'))).toEqual([
      '-offset_x',
      '-3840',
      '-offset_y',
      '-1080',
      '-video_size',
      '3840x2160',
    ]);
    // ddagrab crops relative to its output's own corner, so never negative
    expect(
      buildInputArgs(
        { kind: 'ddagrab', outputIndex: 2, region: { x: 0, y: 0, width: 3840, height: 2160 } },
        30,
        true,
      )[1],
    ).toContain(
      'output_idx=2:framerate=30:draw_mouse=1:offset_x=0:offset_y=0:video_size=3840x2160',
    );
  });

  it('captures the Windows desktop, or one monitor at negative offsets, with gdigrab', () => {
    expect(buildCaptureArgs({ source: { kind: 'gdigrab' }, outputPath: 'w.mp4' })).toEqual([
      ...HEAD,
      '-f',
      'gdigrab',
      '-framerate',
      '30',
      '-draw_mouse',
      '1',
      '-i',
      'desktop',
      '-vf',
      FILTER_30,
      ...ENCODE_TAIL_30,
      'w.mp4',
    ]);
    expect(
      buildInputArgs(
        { kind: 'gdigrab', region: { x: -1920, y: -120, width: 1920, height: 1080 } },
        30,
        true,
      ),
    ).toEqual([
      '-f',
      'gdigrab',
      '-framerate',
      '30',
      '-draw_mouse',
      '1',
      '-offset_x',
      '-1920',
      '-offset_y',
      '-120',
      '-video_size',
      '1920x1080',
      '-i',
      'desktop',
    ]);
  });

  it('captures a Windows output with ddagrab as a -filter_complex source', () => {
    expect(
      buildCaptureArgs({ source: { kind: 'ddagrab', outputIndex: 1 }, outputPath: 'd.mp4' }),
    ).toEqual([
      ...HEAD,
      '-filter_complex',
      `ddagrab=output_idx=1:framerate=30:draw_mouse=1,hwdownload,format=bgra,${FILTER_30}`,
      ...ENCODE_TAIL_30,
      'd.mp4',
    ]);
    expect(
      buildInputArgs(
        { kind: 'ddagrab', outputIndex: 0, region: { x: 10, y: 20, width: 800, height: 600 } },
        15,
        false,
      ),
    ).toEqual([
      '-filter_complex',
      'ddagrab=output_idx=0:framerate=15:draw_mouse=0:offset_x=10:offset_y=20:video_size=800x600,' +
        'hwdownload,format=bgra,fps=15,crop=trunc(iw/2)*2:trunc(ih/2)*2:0:0',
    ]);
  });

  it('rejects bad options with the option name and value', () => {
    const base = { source: { kind: 'x11grab', display: ':99' }, outputPath: 'o.mp4' } as const;
    expect(invalidOption({ ...base, fps: 0 }).message).toBe(
      "Screen capture option 'fps' must be an integer from 1 to 120; got 0.",
    );
    expect(invalidOption({ ...base, fps: 29.97 }).details).toEqual({ option: 'fps', value: 29.97 });
    expect(invalidOption({ ...base, crf: 52 }).message).toContain("'crf'");
    expect(invalidOption({ ...base, outputPath: ' ' }).message).toContain("'outputPath'");
    expect(
      invalidOption({ ...base, source: { kind: 'x11grab', display: ':99.0' } }).message,
    ).toContain('got ":99.0"');
    expect(
      invalidOption({
        ...base,
        source: { kind: 'x11grab', display: ':1', region: { x: -1, y: 0, width: 10, height: 10 } },
      }).message,
    ).toContain("'region.x'");
    expect(invalidOption({ ...base, source: { kind: 'avfoundation', screen: -1 } }).code).toBe(
      'INVALID_PAYLOAD',
    );
    expect(invalidOption({ ...base, source: { kind: 'avfoundation', screen: 1.5 } }).message).toBe(
      "Screen capture option 'screen' must be an integer from 0 to 63; got 1.5.",
    );
    expect(
      invalidOption({
        ...base,
        source: {
          kind: 'avfoundation',
          screen: 0,
          pixelFormat: 'yuv420p' as unknown as 'bgr0',
        },
      }).message,
    ).toBe(
      'Screen capture option \'pixelFormat\' must be one of bgr0, uyvy422, nv12; got "yuv420p".',
    );
    // gdigrab takes negative offsets, ddagrab (relative to its output) does not
    const monitor = { x: -1920, y: -1080, width: 1920, height: 1080 };
    expect(() =>
      buildCaptureArgs({ ...base, source: { kind: 'gdigrab', region: monitor } }),
    ).not.toThrow();
    expect(
      invalidOption({ ...base, source: { kind: 'ddagrab', outputIndex: 0, region: monitor } })
        .message,
    ).toBe("Screen capture option 'region.x' must be an integer from 0 to 1000000; got -1920.");
    expect(
      invalidOption({ ...base, source: { kind: 'ddagrab', outputIndex: 65 } }).details,
    ).toEqual({ option: 'outputIndex', value: 65 });
    expect(
      invalidOption({
        ...base,
        source: { kind: 'gdigrab', region: { x: 0, y: 0, width: 1, height: 1080 } },
      }).message,
    ).toContain("'region.width'");
  });
});

describe('helper argument lists', () => {
  it('makes odd sizes even by cropping, never by scaling', () => {
    expect(buildFrameFilter(60)).toBe('fps=60,crop=trunc(iw/2)*2:trunc(ih/2)*2:0:0');
  });

  it('prefers ddagrab for one monitor and falls back to gdigrab', () => {
    const monitor = { outputIndex: 1, desktopRegion: { x: 1920, y: 0, width: 1280, height: 720 } };
    expect(pickWindowsSource(true, monitor)).toEqual({ kind: 'ddagrab', outputIndex: 1 });
    expect(pickWindowsSource(false, monitor)).toEqual({
      kind: 'gdigrab',
      region: { x: 1920, y: 0, width: 1280, height: 720 },
    });
    expect(pickWindowsSource(true)).toEqual({ kind: 'gdigrab' });
  });

  it('finds filters in `ffmpeg -filters` output', () => {
    const filters = [
      'Filters:',
      '  T.. = Timeline support',
      '  | = Source or sink filter',
      ' ... fps               V->V       Force constant framerate.',
      ' ... ddagrab           |->V       Grab Windows Desktop images using Desktop Duplication API.',
      ' T.C hwdownload        V->V       Download a hardware frame to a normal frame',
    ].join('\n');
    expect(hasFilter(filters, 'ddagrab')).toBe(true);
    expect(hasFilter(filters, 'hwdownload')).toBe(true);
    expect(hasFilter(filters, 'gdigrab')).toBe(false);
    expect(hasFilter(filters, '=')).toBe(false);
  });
});
