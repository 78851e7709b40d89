// The macOS recording parts (docs/platform-macos-windows.md): ffmpeg's avfoundation on the chosen
// display, accessibility, displays, permissions and the active window through our accessibility
// helper (docs/helper-protocol.md). Built to contract: nothing here runs on the Linux build
// machines, so every OS call sits behind the helper and ffmpeg, which tests replace with fakes.
import type { AccessibilityAdapter } from '../../axtree/adapter';
import type { ChildLauncher } from '../../infra/child-launcher';
import type { AvfoundationDevices, FfmpegBinary } from '../../infra/ffmpeg/binary';
import { listAvfoundationDevices, resolveFfmpeg } from '../../infra/ffmpeg/binary';
import { AppError } from '../../shared/errors';
import { monotonicNowMs } from '../clock';
import type { DisplayInfo } from '../display-info';
import type { AvfoundationSource } from '../screen/ffmpeg-args';
import { explainInputHookFailure, macosPermissionError } from './failures';
import { helperFactory } from './helper-client';
import type { ChosenDisplay } from './helper-displays';
import {
  CAPTURE_DISPLAY_ENV_VAR,
  chooseDisplay,
  HelperDisplayWatcher,
  toDisplayInfo,
  withHelper,
} from './helper-displays';
import { HelperWindowTracker } from './helper-windows';
import type { PlatformHelperFactory, PlatformPartOptions, RecorderPlatform } from './types';

/** Test seams of {@link createDarwinPlatform}; production callers pass nothing. */
export type DarwinPlatformOptions = {
  /** How the helper child starts (default: detected, src/infra/child-launcher.ts). */
  launcher?: ChildLauncher;
  /** Helper clients for displays, permissions and the window timeline. */
  helper?: PlatformHelperFactory;
  /** The accessibility adapter (default: a helper client, which is one). */
  accessibility?: (options: PlatformPartOptions) => AccessibilityAdapter;
  /** Finds ffmpeg (default: CUA_FFMPEG, ffmpeg-static, PATH). */
  resolveFfmpeg?: (env: NodeJS.ProcessEnv) => Promise<FfmpegBinary>;
  /** Lists avfoundation's devices (default: `ffmpeg -f avfoundation -list_devices true`). */
  listDevices?: (ffmpegPath: string) => Promise<AvfoundationDevices>;
};

/** The macOS platform. */
export function createDarwinPlatform(options: DarwinPlatformOptions = {}): RecorderPlatform {
  const makeClient = helperFactory('darwin', options.launcher);
  const makeHelper = options.helper ?? makeClient;
  const makeAccessibility = options.accessibility ?? makeClient;
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

  return {
    os: 'darwin',
    // uiohook reports CoreGraphics points on macOS (src/recorder/coordinates.ts)
    inputUnit: 'points',
    capture: {
      device: 'avfoundation',
      readDisplay: async (env): Promise<DisplayInfo> => {
        const chosen = await withHelper(makeHelper, env, monotonicNowMs, async (helper) =>
          chooseDisplay(await helper.displays(), env[CAPTURE_DISPLAY_ENV_VAR]),
        );
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
    accessibilityApi: 'macos-ax (helper)',
    accessibility: (part) => makeAccessibility(part),
    // the helper's displays events: a moved, added or rescaled display starts a new segment
    displays: ({ now, env }) =>
      new HelperDisplayWatcher({
        helper: makeHelper({ now, env }),
        toDisplayInfo: (list) => remember(chooseDisplay(list, env[CAPTURE_DISPLAY_ENV_VAR])),
      }),
    windows: ({ now, env }) => new HelperWindowTracker({ helper: makeHelper({ now, env }), now }),
    preflight: async (env) => {
      const permissions = await withHelper(makeHelper, env, monotonicNowMs, (helper) =>
        helper.permissions(),
      );
      const denied = macosPermissionError(permissions);
      if (denied) {
        throw denied;
      }
    },
    explainStartFailure: (error) => explainInputHookFailure('darwin', error),
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
