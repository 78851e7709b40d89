// ffmpeg checks (docs/platform-linux.md §5, docs/platform-macos-windows.md §3): a recent enough
// ffmpeg, its screen capture device for the OS (x11grab; avfoundation; ddagrab or gdigrab) and
// the libx264 encoder, each with the install command of the OS.
import { resolveFfmpeg } from '../../../infra/ffmpeg/binary';
import type { FfmpegBinary, ResolveFfmpegOptions } from '../../../infra/ffmpeg/binary';
import { isAppError } from '../../../shared/errors';
import {
  isCaptureFfmpegVersion,
  MIN_CAPTURE_FFMPEG_VERSION,
} from '../../../recorder/screen/ffmpeg-args';
import type { DoctorCheck, DoctorCheckId } from './check';

// Finds ffmpeg as recording would (CUA_FFMPEG, ffmpeg-static, PATH) and checks its version,
// capture device and encoder; the dependent checks say "not checked" when there is none.
export async function checkFfmpeg(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  ffmpegOptions: ResolveFfmpegOptions,
): Promise<DoctorCheck[]> {
  const installFfmpeg =
    platform === 'darwin'
      ? 'brew install ffmpeg'
      : platform === 'win32'
        ? 'winget install Gyan.FFmpeg'
        : 'apt-get install ffmpeg';
  let binary: FfmpegBinary;
  try {
    binary = await resolveFfmpeg(env, { ...ffmpegOptions, platform });
  } catch (error) {
    if (!isAppError(error, 'FFMPEG_NOT_FOUND')) {
      throw error;
    }
    const isEnvProblem = error.details?.envVar !== undefined;
    const fix = isEnvProblem
      ? `fix or unset CUA_FFMPEG (currently '${env.CUA_FFMPEG ?? ''}'); without it ffmpeg is taken from PATH (${installFfmpeg})`
      : `${installFfmpeg}, or set CUA_FFMPEG=/path/to/ffmpeg`;
    const skipped = (id: DoctorCheckId): DoctorCheck => ({
      id,
      ok: false,
      severity: 'error',
      summary: 'not checked: no usable ffmpeg',
      fix,
    });
    const checks: DoctorCheck[] = [
      { id: 'ffmpeg', ok: false, severity: 'error', summary: error.message, fix },
    ];
    checks.push(...captureDeviceIds(platform).map(skipped));
    checks.push(skipped('libx264'));
    return checks;
  }

  const sourceText =
    binary.source === 'env'
      ? 'from CUA_FFMPEG'
      : binary.source === 'ffmpeg-static'
        ? 'from ffmpeg-static'
        : 'from PATH';
  const probeText =
    binary.ffprobePath === null
      ? 'no ffprobe (probing falls back to ffmpeg)'
      : `ffprobe ${binary.ffprobePath}`;
  const otherBuild =
    binary.source === 'path'
      ? `${installFfmpeg} (Debian's build has it)`
      : `unset CUA_FFMPEG and ${installFfmpeg} (Debian's build has it)`;
  const isRecent = isCaptureFfmpegVersion(binary.version);
  const checks: DoctorCheck[] = [
    {
      id: 'ffmpeg',
      ok: isRecent,
      severity: 'error',
      summary: `ffmpeg ${binary.version} at ${binary.path} (${sourceText}); ${probeText}${isRecent ? '' : `; recording needs ${MIN_CAPTURE_FFMPEG_VERSION} or newer`}`,
      ...(isRecent
        ? {}
        : {
            fix: `install ffmpeg ${MIN_CAPTURE_FFMPEG_VERSION} or newer (${installFfmpeg}), or set CUA_FFMPEG`,
          }),
    },
  ];
  if (platform === 'darwin' || platform === 'win32') {
    checks.push(...checkCaptureDevices(binary, platform, installFfmpeg));
  }
  if (platform === 'linux') {
    checks.push({
      id: 'x11grab',
      ok: binary.hasX11grab,
      severity: 'error',
      summary: binary.hasX11grab
        ? 'ffmpeg has the x11grab input device'
        : `${binary.path} was built without x11grab: it cannot capture the X screen`,
      ...(binary.hasX11grab
        ? {}
        : { fix: `${otherBuild}, or point CUA_FFMPEG at a build configured with --enable-libxcb` }),
    });
  }
  checks.push({
    id: 'libx264',
    ok: binary.hasLibx264,
    severity: 'error',
    summary: binary.hasLibx264
      ? 'ffmpeg has the libx264 encoder'
      : `${binary.path} was built without libx264: recordings cannot be encoded as H.264`,
    ...(binary.hasLibx264
      ? {}
      : { fix: `${otherBuild}, or point CUA_FFMPEG at a build configured with --enable-libx264` }),
  });
  return checks;
}

// The screen capture device checks of `platform` (their ids, in report order).
function captureDeviceIds(platform: NodeJS.Platform): DoctorCheckId[] {
  switch (platform) {
    case 'linux':
      return ['x11grab'];
    case 'darwin':
      return ['avfoundation'];
    case 'win32':
      return ['ddagrab', 'gdigrab'];
    default:
      return [];
  }
}

// macOS: avfoundation; Windows: ddagrab (preferred, a warning when missing) or gdigrab (every
// build; an error only when neither is there). docs/platform-macos-windows.md §2, §3.
function checkCaptureDevices(
  binary: FfmpegBinary,
  platform: 'darwin' | 'win32',
  installFfmpeg: string,
): DoctorCheck[] {
  const devices = binary.captureDevices;
  if (platform === 'darwin') {
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
          : { fix: `${installFfmpeg}, or point CUA_FFMPEG at a macOS build with avfoundation` }),
      },
    ];
  }
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
        : { fix: `${installFfmpeg} (a current full build has ddagrab), or set CUA_FFMPEG to one` }),
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
        : { fix: `${installFfmpeg}, or point CUA_FFMPEG at a Windows build of ffmpeg` }),
    },
  ];
}
