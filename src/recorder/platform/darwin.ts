// The macOS recording parts (docs/platform-macos-windows.md): ffmpeg's avfoundation on the chosen
// display, accessibility, displays, permissions and the active window through our accessibility
// helper (docs/helper-protocol.md). Built to contract: nothing here runs on the Linux build
// machines, so every OS call sits behind the helper and ffmpeg, which tests replace with fakes.
import type { AvfoundationDevices, FfmpegBinary } from '../../infra/ffmpeg/binary';
import { listAvfoundationDevices, resolveFfmpeg } from '../../infra/ffmpeg/binary';
import { AppError } from '../../shared/errors';
import type { DisplayInfo } from '../display-info';
import type { AvfoundationSource } from '../screen/ffmpeg-args';
import { checkAvfoundation } from './doctor/capture-devices';
import { macosPermissionError } from './failures';
import type { ChosenDisplay } from './helper-displays';
import { toDisplayInfo } from './helper-displays';
import type { HelperPlatformSeams } from './helper-parts';
import { helperParts } from './helper-parts';
import type { RecorderPlatform } from './types';

/** Test seams of {@link createDarwinPlatform}; production callers pass nothing. */
export type DarwinPlatformOptions = HelperPlatformSeams & {
  /** Finds ffmpeg (default: CUA_FFMPEG, ffmpeg-static, PATH). */
  resolveFfmpeg?: (env: NodeJS.ProcessEnv) => Promise<FfmpegBinary>;
  /** Lists avfoundation's devices (default: `ffmpeg -f avfoundation -list_devices true`). */
  listDevices?: (ffmpegPath: string) => Promise<AvfoundationDevices>;
};

/** The macOS platform. */
export function createDarwinPlatform(options: DarwinPlatformOptions = {}): RecorderPlatform {
  const findFfmpeg = options.resolveFfmpeg ?? ((env) => resolveFfmpeg(env));
  const listDevices = options.listDevices ?? listAvfoundationDevices;
  /** avfoundation's `Capture screen N` of each display read, by display id. */
  const screens = new Map<string, number>();

  const resolveAvfoundationFfmpeg = async (env: NodeJS.ProcessEnv): Promise<FfmpegBinary> => {
    const ffmpeg = await findFfmpeg(env);
    if (!ffmpeg.captureDevices.avfoundation) {
      throw new AppError(
        'FFMPEG_NOT_FOUND',
        `ffmpeg at ${ffmpeg.path} (${ffmpeg.version}) has no avfoundation input device: it cannot capture the macOS screen.`,
        { path: ffmpeg.path, device: 'avfoundation' },
        'Install an ffmpeg built for macOS (brew install ffmpeg) or point CUA_FFMPEG at one with avfoundation.',
      );
    }
    return ffmpeg;
  };

  // the recorder's DisplayInfo of a chosen display, its avfoundation screen kept for source()
  const remember = (chosen: ChosenDisplay): DisplayInfo => {
    const info = toDisplayInfo(chosen);
    screens.set(info.display, avfoundationScreen(chosen));
    return info;
  };
  const { parts, readChosenDisplay } = helperParts({
    ...options,
    os: 'darwin',
    accessibilityApi: 'macos-ax (helper)',
    remember,
    permissionError: macosPermissionError,
  });

  return {
    os: 'darwin',
    // uiohook reports CoreGraphics points on macOS (src/recorder/coordinates.ts)
    inputUnit: 'points',
    capture: {
      device: 'avfoundation',
      readDisplay: async (env): Promise<DisplayInfo> => {
        const chosen = await readChosenDisplay(env);
        const screen = avfoundationScreen(chosen);
        const ffmpeg = await resolveAvfoundationFfmpeg(env);
        const devices = await listDevices(ffmpeg.path);
        if (!devices.screens.some((s) => s.screen === screen)) {
          throw new AppError(
            'FFMPEG_FAILED',
            `ffmpeg's avfoundation lists ${devices.screens.length} screen(s) ` +
              `(${devices.screens.map((s) => `Capture screen ${s.screen}`).join(', ') || 'none'}), ` +
              `but display ${chosen.display.id} is Capture screen ${screen}.`,
            { display: chosen.display.id, screen, screens: devices.screens },
            'Grant Screen Recording to the app that runs the recorder (System Settings → Privacy & Security → Screen Recording), or record another display with CUA_CAPTURE_DISPLAY.',
          );
        }
        return remember(chosen);
      },
      resolveFfmpeg: resolveAvfoundationFfmpeg,
      source: (display): AvfoundationSource => {
        const screen = screens.get(display.display);
        if (screen === undefined) {
          throw new AppError(
            'INVALID_STATE',
            `Display ${display.display} was not read by this capture backend: call readDisplay() first.`,
          );
        }
        return { kind: 'avfoundation', screen };
      },
    },
    ...parts,
    roleSystem: 'ax',
    doctor: {
      installFfmpeg: 'brew install ffmpeg',
      captureDeviceIds: ['avfoundation'],
      captureDevices: checkAvfoundation,
    },
  };
}

// avfoundation's `Capture screen N` of a display: N is its place in CGGetActiveDisplayList, which
// the helper reports as `listIndex`; without it only the main display (always first there) and,
// of two displays, the other one are known (docs/platform-macos-windows.md §2).
export function avfoundationScreen(chosen: ChosenDisplay): number {
  const { display, all } = chosen;
  if (display.listIndex !== undefined) {
    return display.listIndex;
  }
  if (display.primary) {
    return 0;
  }
  if (all.length === 2 && all.some((d) => d.primary)) {
    return 1;
  }
  throw new AppError(
    'FFMPEG_FAILED',
    `Cannot tell which avfoundation screen display ${display.id} is: the accessibility helper does not report its place in CoreGraphics' display list (listIndex), and there are ${all.length} displays.`,
    { display: display.id, displays: all.map((d) => d.id) },
    'Record the main display (unset CUA_CAPTURE_DISPLAY), or install a helper that reports listIndex.',
  );
}
