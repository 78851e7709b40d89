// The Linux recording parts (docs/platform-linux.md): ffmpeg x11grab on the X display, AT-SPI over
// D-Bus for accessibility, `_NET_ACTIVE_WINDOW` through xprop for the active window, the X11
// window lookups of exclusion rules, the doctor's X11 and AT-SPI checks; a Wayland session is
// refused before capture (wayland.ts).
import { AtspiAdapter } from '../../axtree/platform/linux/atspi-adapter';
import { AppError } from '../../shared/errors';
import { readDisplayInfo } from '../display-info';
import { RandrEventWatcher } from '../display-watcher';
import { resolveFfmpeg } from '../../infra/ffmpeg/binary';
import { linuxProcessName } from '../privacy/capture-exclusion';
import { x11PointerWindow } from '../privacy/x11-pointer-window';
import { ActiveWindowTracker } from '../windows/active-window';
import { X11WindowStack } from '../windows/x11-window-stack';
import { checkAtspi } from './doctor/atspi';
import { checkX11grab } from './doctor/capture-devices';
import { checkSessionType, checkX11 } from './doctor/x11';
import type { RecorderPlatform } from './types';
import { refuseWaylandSession } from './wayland';

/** The Linux (X11) platform. */
export function createLinuxPlatform(): RecorderPlatform {
  return {
    os: 'linux',
    capture: {
      device: 'x11grab',
      readDisplay: (env) => readDisplayInfo(env),
      resolveFfmpeg: async (env) => {
        const ffmpeg = await resolveFfmpeg(env);
        if (!ffmpeg.hasX11grab) {
          throw new AppError(
            'FFMPEG_NOT_FOUND',
            `ffmpeg at ${ffmpeg.path} (${ffmpeg.version}) has no x11grab device; install Debian's ffmpeg (apt-get install ffmpeg) or point CUA_FFMPEG at a build with x11grab.`,
          );
        }
        return ffmpeg;
      },
      source: (display) => ({ kind: 'x11grab', display: display.display }),
    },
    accessibilityApi: 'atspi',
    accessibility: ({ now, env }) => new AtspiAdapter({ now, env }),
    roleSystem: 'atspi',
    // each X display's desktop session has its own AT-SPI bus (docs/replay.md)
    hasAccessibilityBusPerDisplay: true,
    windows: ({ now, env }) => new ActiveWindowTracker({ now, env }),
    // RandR events from xev, then the X screen read: a resolution change starts a new segment
    displays: ({ env }) => new RandrEventWatcher({ read: () => readDisplayInfo(env), env }),
    // x11grab records black under Wayland (XWayland's DISPLAY is set there too)
    preflight: (env) =>
      new Promise<void>((resolve) => {
        refuseWaylandSession(env);
        resolve();
      }),
    // X11 lets us ask which window is under the pointer and what is on the screen (docs/privacy.md)
    pointerWindow: (env) => x11PointerWindow({ env }),
    processName: linuxProcessName,
    windowStack: (options) => new X11WindowStack(options),
    doctor: {
      installFfmpeg: 'apt-get install ffmpeg',
      captureDeviceIds: ['x11grab'],
      session: async (env, timeoutMs) => [
        checkSessionType(env),
        ...(await checkX11(env, timeoutMs)),
      ],
      captureDevices: checkX11grab,
      accessibility: async (env, timeoutMs) => [await checkAtspi(env, timeoutMs)],
    },
  };
}
