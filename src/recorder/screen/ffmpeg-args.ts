// Pure ffmpeg argument builders for screen capture (docs/architecture.md §5 "Pure argument builders"):
// typed options in, argument array out, one comment per flag saying why. The same list is what
// FfmpegRecorder spawns and what a benchmark runs as "ffmpeg alone" (docs/platform-linux.md §5).
import { AppError } from '../../shared/errors';

// the filter list parser lives with the other capability parsers; kept importable from here
export { hasFilter } from '../../infra/ffmpeg/binary';

/** A rectangle of the captured surface in physical px. */
export type CaptureRegion = {
  /** Left edge in px (x11grab: X screen coordinates; gdigrab: virtual-desktop, may be < 0). */
  x: number;
  /** Top edge in px (same space as `x`). */
  y: number;
  /** Width in px (odd sizes are cropped by 1 px for yuv420p). */
  width: number;
  /** Height in px (odd sizes are cropped by 1 px for yuv420p). */
  height: number;
};

/** Linux: an X screen, or one RandR monitor of it given as a region. */
export type X11grabSource = {
  kind: 'x11grab';
  /** X display name without the screen, e.g. `:99` or `host:0`. */
  display: string;
  /** X screen number; default 0. */
  screen?: number;
  /** RandR monitor rectangle; omitted = the whole X screen. */
  region?: CaptureRegion;
};

/** Pixel formats the recorder asks AVFoundation for (docs/platform-macos-windows.md §2). */
export type AvfoundationPixelFormat = 'bgr0' | 'uyvy422' | 'nv12';

/** macOS: a whole display through AVFoundation (`AVCaptureScreenInput`). */
export type AvfoundationSource = {
  kind: 'avfoundation';
  /**
   * The display's position in CoreGraphics' active display list: ffmpeg's `Capture screen N`
   * (resolved from the display id with `-list_devices true`, src/recorder/platform/darwin.ts).
   */
  screen: number;
  /** Pixel format requested from AVFoundation; default `bgr0` (the screen's own 32-bit BGRA). */
  pixelFormat?: AvfoundationPixelFormat;
};

/** Windows: GDI capture of the virtual desktop or a rectangle of it (every ffmpeg build). */
export type GdigrabSource = {
  kind: 'gdigrab';
  /** Monitor rectangle in virtual-desktop px; omitted = the whole virtual desktop. */
  region?: CaptureRegion;
};

/** Windows: Desktop Duplication API (ffmpeg ≥ 6 built with D3D11; cheaper than GDI). */
export type DdagrabSource = {
  kind: 'ddagrab';
  /** DXGI output (monitor) index. */
  outputIndex: number;
  /** Rectangle relative to that output's top-left corner; omitted = the whole output. */
  region?: CaptureRegion;
};

/** Where frames come from. */
export type CaptureSource = X11grabSource | AvfoundationSource | GdigrabSource | DdagrabSource;

/** Capture device name, as used in timestamp method names (`x11grab-pts-wallclock`). */
export type CaptureDevice = CaptureSource['kind'];

/** x264 speed presets the recorder allows (docs/platform-linux.md §5 cost table). */
export type CapturePreset = 'ultrafast' | 'veryfast';

/** Options of {@link buildCaptureArgs}. */
export type CaptureArgsOptions = {
  /** What to capture. */
  source: CaptureSource;
  /** Output file (fragmented MP4, whatever the extension); never overwritten. */
  outputPath: string;
  /** Constant frame rate of capture and file, in frames/s (integer 1–120); default 30. */
  fps?: number;
  /** x264 preset; default `ultrafast`. */
  preset?: CapturePreset;
  /** x264 constant rate factor (0–51, lower = better); default 23. */
  crf?: number;
  /** Draw the mouse pointer into the frames; default true. */
  drawMouse?: boolean;
  /** How often ffmpeg writes a `-progress` block, in ms; default 500. */
  progressIntervalMs?: number;
};

/** Pixel formats accepted for avfoundation. */
const AVFOUNDATION_PIXEL_FORMATS: readonly AvfoundationPixelFormat[] = ['bgr0', 'uyvy422', 'nv12'];

/** Default capture frame rate, in frames/s. */
export const DEFAULT_CAPTURE_FPS = 30;
/**
 * Default x264 preset. At 30 fps on the 2-core build machine ultrafast costs 18–24 % of a core
 * against 29–30 % for veryfast (≈1.5×), for 3–5× larger files that still stay at 0.02–0.4 GB/h
 * (docs/platform-linux.md §5). The recorder shares the CPU with the app being recorded, so CPU
 * wins over bytes; veryfast stays selectable for long sessions on fast machines.
 */
export const DEFAULT_CAPTURE_PRESET: CapturePreset = 'ultrafast';
/** Default x264 CRF: keeps small UI text legible for training (spec table: crf 23 rows). */
export const DEFAULT_CAPTURE_CRF = 23;
/** Default interval between `-progress` blocks, in ms (ffmpeg's own default). */
export const DEFAULT_PROGRESS_INTERVAL_MS = 500;

/**
 * Oldest ffmpeg the capture arguments work with: `-fps_mode` came in 5.1 (`-stats_period` in
 * 4.4). Debian 12 has 5.1; the Windows ffmpeg 4.1 of @ffmpeg-installer refuses them (tested
 * under Wine, tests/wine/win32.test.ts).
 */
export const MIN_CAPTURE_FFMPEG_VERSION = '5.1';

// True when an ffmpeg `-version` string (`5.1.9-0+deb12u1`, `n6.1`, `4.1`) is at least 5.1;
// builds without a release number (`N-113093-g…`, dated git builds) count as new enough.
export function isCaptureFfmpegVersion(version: string): boolean {
  const match = /^n?(\d+)\.(\d+)/.exec(version);
  if (!match) {
    return true;
  }
  const [minMajor, minMinor] = MIN_CAPTURE_FFMPEG_VERSION.split('.').map(Number) as [
    number,
    number,
  ];
  const major = Number(match[1]);
  return major > minMajor || (major === minMajor && Number(match[2]) >= minMinor);
}

// Full ffmpeg argument list for one screen recording (input, filters, encoder, muxer, progress).
export function buildCaptureArgs(options: CaptureArgsOptions): string[] {
  const fps = options.fps ?? DEFAULT_CAPTURE_FPS;
  const preset = options.preset ?? DEFAULT_CAPTURE_PRESET;
  const crf = options.crf ?? DEFAULT_CAPTURE_CRF;
  const drawMouse = options.drawMouse ?? true;
  const progressIntervalMs = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  checkInteger('fps', fps, 1, 120);
  checkInteger('crf', crf, 0, 51);
  checkInteger('progressIntervalMs', progressIntervalMs, 10, 60_000);
  if (options.outputPath.trim() === '') {
    throw invalid('outputPath', options.outputPath, 'a file path');
  }
  const filter = buildFrameFilter(fps);
  return [
    // no build banner: the kept stderr tail should hold diagnostics, not configure flags
    '-hide_banner',
    // no interactive stats on stderr; progress comes machine-readable from -progress below
    '-nostats',
    // info prints the input's `start:` (frame 0's capture timestamp, see video-start.ts);
    // verbose adds the final demuxed/dropped/duplicated/encoded counts reconciled at stop
    '-loglevel',
    'verbose',
    // key=value progress blocks (frame, fps, dup/drop, out_time) on stdout for onProgress
    '-progress',
    'pipe:1',
    // progress cadence; the first block (frame=1) doubles as the readiness signal
    '-stats_period',
    formatSeconds(progressIntervalMs),
    // never overwrite an existing recording
    '-n',
    ...buildInputArgs(options.source, fps, drawMouse, filter),
    // ddagrab is a filter source: its chain (including the frame filter) is in -filter_complex
    ...(options.source.kind === 'ddagrab' ? [] : ['-vf', filter]),
    // keep every filtered frame at its slot: constant frame rate in the file
    '-fps_mode',
    'cfr',
    // stream frame rate of the file (r_frame_rate = fps/1 for players and OpenCUA)
    '-r',
    String(fps),
    '-c:v',
    'libx264',
    // CPU over bytes, see DEFAULT_CAPTURE_PRESET
    '-preset',
    preset,
    '-crf',
    String(crf),
    // 4:2:0 8-bit: the only layout every player and browser decodes
    '-pix_fmt',
    'yuv420p',
    // keyframe every second: each keyframe closes a fragment, so a crash loses ≤ 1 s
    '-g',
    String(fps),
    // fragmented MP4: readable without a trailer after SIGKILL (docs/platform-linux.md §5)
    '-movflags',
    '+frag_keyframe+empty_moov+default_base_moof',
    // write each fragment to disk at once; without it Debian 5.1 kept nothing after SIGKILL
    '-flush_packets',
    '1',
    // the muxer, whatever the file extension
    '-f',
    'mp4',
    options.outputPath,
  ];
}

// Video filter chain: snap frames to the constant-rate grid and make the size yuv420p-safe.
export function buildFrameFilter(fps: number): string {
  checkInteger('fps', fps, 1, 120);
  // fps= places each captured frame in the nearest slot of the 1/fps grid. Relying on `-r` alone
  // lets ffmpeg's CFR logic run up to 1.1 frames behind after a start-up hiccup: measured +35 ms
  // (one frame) between screen content and video time in every test run, so we never do that.
  // crop to even sizes (pixel-exact, no scaling) because libx264 yuv420p needs them.
  return `fps=${fps},crop=trunc(iw/2)*2:trunc(ih/2)*2:0:0`;
}

// Input (device) arguments for one source at `fps` frames/s.
export function buildInputArgs(
  source: CaptureSource,
  fps: number,
  drawMouse: boolean,
  frameFilter: string = buildFrameFilter(fps),
): string[] {
  const mouse = drawMouse ? '1' : '0';
  switch (source.kind) {
    case 'x11grab': {
      checkDisplay(source.display);
      const screen = source.screen ?? 0;
      checkInteger('screen', screen, 0, 255);
      const region = source.region;
      if (region) {
        checkRegion(region, 0);
      }
      return [
        // X11 capture through XCB (+SHM); its packets carry the capture time (video-start.ts)
        '-f',
        'x11grab',
        // grab pacing; x11grab's default is NTSC 29.97, so always set it
        '-framerate',
        String(fps),
        // cursor drawn into the frames, as the user saw it
        '-draw_mouse',
        mouse,
        // a RandR monitor is a WxH rectangle at +X,Y of the X screen
        ...(region ? ['-video_size', `${region.width}x${region.height}`] : []),
        '-i',
        `${source.display}.${screen}${region ? `+${region.x},${region.y}` : ''}`,
      ];
    }
    case 'avfoundation': {
      checkInteger('screen', source.screen, 0, 63);
      const pixelFormat = source.pixelFormat ?? 'bgr0';
      if (!AVFOUNDATION_PIXEL_FORMATS.includes(pixelFormat)) {
        throw invalid(
          'pixelFormat',
          pixelFormat,
          `one of ${AVFOUNDATION_PIXEL_FORMATS.join(', ')}`,
        );
      }
      return [
        // macOS screen capture through AVCaptureScreenInput (needs Screen Recording; see
        // docs/platform-macos-windows.md §2 for macOS 15, where public reports say it fails)
        '-f',
        'avfoundation',
        // capture pacing requested from AVFoundation (its default is NTSC 29.97)
        '-framerate',
        String(fps),
        // cursor drawn into the frames, as the user saw it
        '-capture_cursor',
        mouse,
        // no click rings drawn: the video shows the screen, the events say where clicks were
        '-capture_mouse_clicks',
        '0',
        // the screen's own BGRA layout by default: one conversion (ours, to yuv420p), full chroma
        // until then; uyvy422/nv12 halve the bytes AVFoundation hands over on slow machines
        '-pixel_format',
        pixelFormat,
        // avfoundation stamps a packet av_gettime() - first_pts when ffmpeg reads it, so its
        // `start:` is 0 and says nothing; the same read time as an absolute wall-clock stamp
        // gives the first-frame time video-start.ts converts (as for x11grab on Debian)
        '-use_wallclock_as_timestamps',
        '1',
        // "<video>:<audio>" by name, not by device index: the index counts cameras first and
        // shifts when one is plugged in between segments; no audio
        '-i',
        `Capture screen ${source.screen}:none`,
      ];
    }
    case 'gdigrab': {
      const region = source.region;
      if (region) {
        checkRegion(region, -1_000_000);
      }
      return [
        // Windows GDI capture: available in every build, fallback when ddagrab is missing
        '-f',
        'gdigrab',
        // capture pacing
        '-framerate',
        String(fps),
        // cursor drawn into the frames
        '-draw_mouse',
        mouse,
        // one monitor = a rectangle of the virtual desktop (offsets may be negative)
        ...(region
          ? [
              '-offset_x',
              String(region.x),
              '-offset_y',
              String(region.y),
              '-video_size',
              `${region.width}x${region.height}`,
            ]
          : []),
        '-i',
        'desktop',
      ];
    }
    case 'ddagrab': {
      checkInteger('outputIndex', source.outputIndex, 0, 64);
      const region = source.region;
      if (region) {
        checkRegion(region, 0);
      }
      const grab = [
        `output_idx=${source.outputIndex}`,
        `framerate=${fps}`,
        `draw_mouse=${mouse}`,
        ...(region
          ? [
              `offset_x=${region.x}`,
              `offset_y=${region.y}`,
              `video_size=${region.width}x${region.height}`,
            ]
          : []),
      ].join(':');
      return [
        // Desktop Duplication source filter; frames live in D3D11 memory, so download them
        // and view them as BGRA before the CPU-side frame filter and libx264
        '-filter_complex',
        `ddagrab=${grab},hwdownload,format=bgra,${frameFilter}`,
      ];
    }
  }
}

/** A Windows monitor as the recorder enumerates it. */
export type WindowsMonitor = {
  /** DXGI output index (ddagrab's `output_idx`). */
  outputIndex: number;
  /** The monitor's bounds in virtual-desktop px (gdigrab offsets; may be negative). */
  desktopRegion: CaptureRegion;
};

// The Windows source to use: ddagrab for one monitor when this ffmpeg has it, else gdigrab.
export function pickWindowsSource(
  hasDdagrab: boolean,
  monitor?: WindowsMonitor,
): DdagrabSource | GdigrabSource {
  if (!monitor) {
    // ddagrab sees one output at a time; only GDI spans the whole virtual desktop
    return { kind: 'gdigrab' };
  }
  return hasDdagrab
    ? { kind: 'ddagrab', outputIndex: monitor.outputIndex }
    : { kind: 'gdigrab', region: monitor.desktopRegion };
}

function formatSeconds(ms: number): string {
  return String(ms / 1000);
}

function checkInteger(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw invalid(name, value, `an integer from ${min} to ${max}`);
  }
}

function checkRegion(region: CaptureRegion, minOffset: number): void {
  checkInteger('region.x', region.x, minOffset, 1_000_000);
  checkInteger('region.y', region.y, minOffset, 1_000_000);
  checkInteger('region.width', region.width, 2, 1_000_000);
  checkInteger('region.height', region.height, 2, 1_000_000);
}

function checkDisplay(display: string): void {
  // `[host]:N`; the screen number comes from `screen`, so `:99.0` is rejected
  if (!/^[A-Za-z0-9._/-]*:\d+$/.test(display)) {
    throw invalid('display', display, "an X display name like ':99'");
  }
}

function invalid(name: string, value: unknown, expected: string): AppError {
  return new AppError(
    'INVALID_PAYLOAD',
    `Screen capture option '${name}' must be ${expected}; got ${JSON.stringify(value)}.`,
    { option: name, value },
  );
}

/** One piece of a paused recording: a segment file or a black gap of whole frames. */
export type TimelinePiece =
  | {
      kind: 'segment';
      path: string;
      /** Frame size when it differs from the joined video's (the display changed): the segment
       * is padded with black at the right and bottom, never scaled, so its pixels keep their
       * coordinates (docs/architecture.md §5 "Coordinates"). */
      size?: { width: number; height: number };
    }
  | { kind: 'gap'; frames: number };

/**
 * Joins the segments of a paused recording into one CFR video whose frame n shows recording
 * time `start + n / fps`: pauses become black frames, so the single-clock mapping still holds.
 */
export function buildSegmentJoinArgs(options: {
  pieces: readonly TimelinePiece[];
  width: number;
  height: number;
  fps: number;
  outputPath: string;
}): string[] {
  const inputs: string[] = [];
  const filters: string[] = [];
  const labels: string[] = [];
  let input = 0;
  options.pieces.forEach((piece, i) => {
    if (piece.kind === 'segment') {
      inputs.push('-i', piece.path);
      // normalise each segment to the target grid and restart its time stamps
      const pad =
        piece.size && (piece.size.width !== options.width || piece.size.height !== options.height)
          ? `,pad=${options.width}:${options.height}:0:0:color=black`
          : '';
      filters.push(
        `[${input}:v]fps=${options.fps},format=yuv420p${pad},setpts=PTS-STARTPTS[p${i}]`,
      );
      input += 1;
    } else {
      filters.push(
        `color=c=black:s=${options.width}x${options.height}:r=${options.fps}:d=${(piece.frames / options.fps).toFixed(6)},format=yuv420p[p${i}]`,
      );
    }
    labels.push(`[p${i}]`);
  });
  filters.push(`${labels.join('')}concat=n=${labels.length}:v=1:a=0[out]`);
  return [
    '-hide_banner',
    '-nostdin',
    '-y',
    ...inputs,
    '-filter_complex',
    filters.join(';'),
    '-map',
    '[out]',
    // same encoder settings as the capture, constant frame rate
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-r',
    String(options.fps),
    '-movflags',
    '+faststart',
    options.outputPath,
  ];
}
