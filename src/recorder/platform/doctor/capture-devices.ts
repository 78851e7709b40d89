// Each platform's doctor checks of ffmpeg's screen capture device (docs/platform-linux.md §5,
// docs/platform-macos-windows.md §2, §3): Linux x11grab; macOS avfoundation; Windows ddagrab
// (preferred, a warning when missing) or gdigrab (every build; an error only when neither is
// there). The ffmpeg check itself (version, libx264) is every OS's (src/services/system/checks/
// ffmpeg.ts).
import type { FfmpegBinary } from '../../../infra/ffmpeg/binary';
import type { CaptureDeviceFixes, PlatformCheck } from '../types';

// Linux: ffmpeg's x11grab input device.
export function checkX11grab(binary: FfmpegBinary, fixes: CaptureDeviceFixes): PlatformCheck[] {
  return [
    {
      id: 'x11grab',
      ok: binary.hasX11grab,
      severity: 'error',
      summary: binary.hasX11grab
        ? 'ffmpeg has the x11grab input device'
        : `${binary.path} was built without x11grab: it cannot capture the X screen`,
      ...(binary.hasX11grab
        ? {}
        : {
            fix: `${fixes.otherBuild}, or point CUA_FFMPEG at a build configured with --enable-libxcb`,
          }),
    },
  ];
}

// macOS: ffmpeg's avfoundation input device.
export function checkAvfoundation(
  binary: FfmpegBinary,
  fixes: CaptureDeviceFixes,
): PlatformCheck[] {
  const devices = binary.captureDevices;
  return [
    {
      id: 'avfoundation',
      ok: devices.avfoundation,
      severity: 'error',
      summary: devices.avfoundation
        ? 'ffmpeg has the avfoundation input device (macOS screen capture)'
        : `${binary.path} was built without avfoundation: it cannot capture the macOS screen`,
      ...(devices.avfoundation
        ? {}
        : { fix: `${fixes.install}, or point CUA_FFMPEG at a macOS build with avfoundation` }),
    },
  ];
}

// Windows: ffmpeg's ddagrab filter (a warning when missing) and gdigrab device (an error only
// when neither is there).
export function checkWindowsCapture(
  binary: FfmpegBinary,
  fixes: CaptureDeviceFixes,
): PlatformCheck[] {
  const devices = binary.captureDevices;
  return [
    {
      id: 'ddagrab',
      ok: devices.ddagrab,
      severity: 'warning',
      summary: devices.ddagrab
        ? 'ffmpeg has the ddagrab filter (Desktop Duplication, one monitor at a time)'
        : `${binary.path} has no ddagrab filter (ffmpeg 6.0+ with D3D11): capture falls back to gdigrab, which costs more CPU`,
      ...(devices.ddagrab
        ? {}
        : { fix: `${fixes.install} (a current full build has ddagrab), or set CUA_FFMPEG to one` }),
    },
    {
      id: 'gdigrab',
      ok: devices.gdigrab || devices.ddagrab,
      severity: 'error',
      summary: devices.gdigrab
        ? 'ffmpeg has the gdigrab input device (GDI capture of a desktop rectangle)'
        : devices.ddagrab
          ? `${binary.path} has no gdigrab; ddagrab captures instead`
          : `${binary.path} has neither ddagrab nor gdigrab: it cannot capture the Windows screen`,
      ...(devices.gdigrab || devices.ddagrab
        ? {}
        : { fix: `${fixes.install}, or point CUA_FFMPEG at a Windows build of ffmpeg` }),
    },
  ];
}
