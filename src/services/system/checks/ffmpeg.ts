// ffmpeg checks (docs/platform-linux.md §5, docs/platform-macos-windows.md §3): a recent enough
// ffmpeg, its screen capture device for the OS (the platform's checks: x11grab; avfoundation;
// ddagrab or gdigrab) and the libx264 encoder, each with the platform's install command.
import { resolveFfmpeg } from '../../../infra/ffmpeg/binary';
import type { FfmpegBinary, ResolveFfmpegOptions } from '../../../infra/ffmpeg/binary';
import type { PlatformDoctor } from '../../../recorder/platform';
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
  osChecks: PlatformDoctor,
  ffmpegOptions: ResolveFfmpegOptions,
): Promise<DoctorCheck[]> {
  const installFfmpeg = osChecks.installFfmpeg;
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
    checks.push(...osChecks.captureDeviceIds.map(skipped));
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
  checks.push(...osChecks.captureDevices(binary, { install: installFfmpeg, otherBuild }));
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
