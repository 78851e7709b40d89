// The Windows recording parts (docs/platform-macos-windows.md): ffmpeg's ddagrab (Desktop
// Duplication) on the chosen monitor when the build has it, else gdigrab on that monitor's
// rectangle of the virtual desktop; accessibility, monitors and the active window through our
// accessibility helper (docs/helper-protocol.md). Built to contract, tested with fakes here.
import type { HelperDisplay } from '../../axtree/platform/helper-protocol';
import type { FfmpegBinary } from '../../infra/ffmpeg/binary';
import { resolveFfmpeg } from '../../infra/ffmpeg/binary';
import { AppError } from '../../shared/errors';
import type { DisplayInfo } from '../display-info';
import type { CaptureDevice, DdagrabSource, GdigrabSource } from '../screen/ffmpeg-args';
import { pickWindowsSource, type WindowsMonitor } from '../screen/ffmpeg-args';
import { checkWindowsCapture } from './doctor/capture-devices';
import type { ChosenDisplay } from './helper-displays';
import { toDisplayInfo } from './helper-displays';
import type { HelperPlatformSeams } from './helper-parts';
import { helperParts } from './helper-parts';
import type { RecorderPlatform } from './types';

/** Environment variable forcing the Windows capture device (`gdigrab` or `ddagrab`). */
export const WINDOWS_CAPTURE_ENV_VAR = 'CUA_WINDOWS_CAPTURE';

/** Test seams of {@link createWin32Platform}; production callers pass nothing. */
export type Win32PlatformOptions = HelperPlatformSeams & {
  /** Finds ffmpeg (default: CUA_FFMPEG, ffmpeg-static, PATH). */
  resolveFfmpeg?: (env: NodeJS.ProcessEnv) => Promise<FfmpegBinary>;
};

// ddagrab's output_idx of a monitor: "usually the index Windows has given the screen minus one"
// (ffmpeg's ddagrab documentation), read from the GDI device name `\\.\DISPLAYn`; null otherwise.
export function ddagrabOutputIndex(display: HelperDisplay): number | null {
  const match = /^\\\\\.\\DISPLAY(\d+)$/i.exec(display.id);
  return match ? Number(match[1]) - 1 : null;
}

/** The Windows platform. */
export function createWin32Platform(options: Win32PlatformOptions = {}): RecorderPlatform {
  const findFfmpeg = options.resolveFfmpeg ?? ((env) => resolveFfmpeg(env));
  /** The monitor of each display read, by display id. */
  const monitors = new Map<string, { monitor: WindowsMonitor; hasOutputIndex: boolean }>();
  /** Which device the resolved ffmpeg records with (gdigrab until resolveFfmpeg says more). */
  let device: Extract<CaptureDevice, 'ddagrab' | 'gdigrab'> = 'gdigrab';

  // the recorder's DisplayInfo of a chosen display, its monitor kept for source()
  const remember = (chosen: ChosenDisplay): DisplayInfo => {
    const outputIndex = ddagrabOutputIndex(chosen.display);
    const info = toDisplayInfo(chosen);
    monitors.set(info.display, {
      monitor: {
        outputIndex: outputIndex ?? 0,
        // gdigrab's offsets are the monitor's corner in the virtual desktop (negative left of or
        // above the primary one), its size the monitor's, all in physical px
        desktopRegion: { ...chosen.display.bounds },
      },
      hasOutputIndex: outputIndex !== null,
    });
    return info;
  };
  const { parts, readChosenDisplay } = helperParts({
    ...options,
    os: 'win32',
    accessibilityApi: 'windows-uia (helper)',
    remember,
  });

  return {
    os: 'win32',
    capture: {
      get device() {
        return device;
      },
      readDisplay: async (env): Promise<DisplayInfo> => {
        return remember(await readChosenDisplay(env));
      },
      resolveFfmpeg: async (env) => {
        const ffmpeg = await findFfmpeg(env);
        const { ddagrab, gdigrab } = ffmpeg.captureDevices;
        const forced = env[WINDOWS_CAPTURE_ENV_VAR]?.trim().toLowerCase() ?? '';
        if (forced !== '' && forced !== 'gdigrab' && forced !== 'ddagrab') {
          throw new AppError(
            'INVALID_PAYLOAD',
            `${WINDOWS_CAPTURE_ENV_VAR}='${forced}' is neither gdigrab nor ddagrab.`,
            { value: forced },
            `Set ${WINDOWS_CAPTURE_ENV_VAR} to gdigrab or ddagrab, or unset it to pick the best one.`,
          );
        }
        if (forced === 'ddagrab' && !ddagrab) {
          throw new AppError(
            'FFMPEG_NOT_FOUND',
            `${WINDOWS_CAPTURE_ENV_VAR}=ddagrab, but ffmpeg at ${ffmpeg.path} (${ffmpeg.version}) has no ddagrab filter (it needs ffmpeg 6.0 or newer built with D3D11).`,
            { path: ffmpeg.path, device: 'ddagrab' },
            'Install a current full build (winget install Gyan.FFmpeg) or unset CUA_WINDOWS_CAPTURE to use gdigrab.',
          );
        }
        if (!ddagrab && !gdigrab) {
          throw new AppError(
            'FFMPEG_NOT_FOUND',
            `ffmpeg at ${ffmpeg.path} (${ffmpeg.version}) has neither the ddagrab filter nor the gdigrab device: it cannot capture the Windows screen.`,
            { path: ffmpeg.path, device: 'gdigrab' },
            'Install a Windows build of ffmpeg (winget install Gyan.FFmpeg) or point CUA_FFMPEG at one.',
          );
        }
        device = forced === 'gdigrab' || !ddagrab ? 'gdigrab' : 'ddagrab';
        return ffmpeg;
      },
      source: (display): DdagrabSource | GdigrabSource => {
        const known = monitors.get(display.display);
        if (!known) {
          throw new AppError(
            'INVALID_STATE',
            `Display ${display.display} was not read by this capture backend: call readDisplay() first.`,
          );
        }
        // a monitor without a DXGI index (not a \\.\DISPLAYn name) falls back to GDI
        return pickWindowsSource(device === 'ddagrab' && known.hasOutputIndex, known.monitor);
      },
    },
    ...parts,
    roleSystem: 'uia',
    doctor: {
      installFfmpeg: 'winget install Gyan.FFmpeg',
      captureDeviceIds: ['ddagrab', 'gdigrab'],
      captureDevices: checkWindowsCapture,
    },
  };
}
