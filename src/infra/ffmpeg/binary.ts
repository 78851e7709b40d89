// Finds the ffmpeg executable once and reports what it can do (docs/architecture.md §5 "Binary
// resolution"). Order: CUA_FFMPEG → ffmpeg-static's binary → `ffmpeg` on PATH
// (docs/platform-linux.md §5, §10). ffmpeg-static is an optionalDependency whose install script
// downloads from GitHub, so on offline build machines it is usually absent: never assume it.
import { constants as fsConstants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { userCacheDir } from '../cache-dir';
import { tailLines } from '../lines';
import { runCommand } from '../run-command';
import { readCachedCapabilities, writeCachedCapabilities } from './capability-cache';

/** Where the ffmpeg binary came from. */
export type FfmpegSource = 'env' | 'ffmpeg-static' | 'path';

/** A resolved, verified ffmpeg executable and its capabilities. */
export type FfmpegBinary = {
  /** Absolute path of the ffmpeg executable. */
  path: string;
  /** Which resolution step found it. */
  source: FfmpegSource;
  /** Version from the first line of `ffmpeg -version`, e.g. `5.1.9-0+deb12u1`. */
  version: string;
  /** ffprobe next to the binary, else on PATH; null when there is none (probing falls back). */
  ffprobePath: string | null;
  /** True when `ffmpeg -devices` lists the x11grab input device (Linux screen capture). */
  hasX11grab: boolean;
  /** Which screen capture inputs this build has, from `-devices` and `-filters`. */
  captureDevices: CaptureDeviceSupport;
  /** True when `ffmpeg -encoders` lists libx264. */
  hasLibx264: boolean;
};

/** Screen capture inputs a build may have: x11grab (Linux), avfoundation (macOS), gdigrab
 * (Windows, every build) as input devices; ddagrab (Windows, ffmpeg ≥ 6.0 with D3D11) as a filter. */
export type CaptureDeviceSupport = {
  x11grab: boolean;
  avfoundation: boolean;
  gdigrab: boolean;
  ddagrab: boolean;
};

/** Test seams of {@link resolveFfmpeg}; production callers pass nothing. */
export type ResolveFfmpegOptions = {
  /** Returns ffmpeg-static's binary path, or null when the package is not installed. */
  locateStaticBinary?: () => string | null;
  /** Platform whose conventions (`.exe`, install hints) apply; default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Folder of the capability cache (capability-cache.ts); null: none; default the user's cache
   * folder of `env` (src/infra/cache-dir.ts). */
  cacheDir?: string | null;
};

/** Environment variable naming an explicit ffmpeg executable. */
export const FFMPEG_ENV_VAR = 'CUA_FFMPEG';
/** Limit for each capability query (`-version`, `-devices`, `-encoders`, `-filters`), in ms. */
const QUERY_TIMEOUT_MS = 15_000;
/** Output cap of a capability query, in bytes (the encoder list is ~30 KB). */
const QUERY_MAX_BUFFER_BYTES = 4 * 1024 * 1024;

/** What the capability queries tell about a build (cached per binary, capability-cache.ts). */
export type FfmpegCapabilities = Pick<
  FfmpegBinary,
  'version' | 'hasX11grab' | 'hasLibx264' | 'captureDevices'
>;

/** Capability probes per binary identity (path + mtime + size), shared by concurrent callers. */
const capabilityCache = new Map<string, Promise<FfmpegCapabilities>>();

// Finds and verifies ffmpeg (CUA_FFMPEG → ffmpeg-static → PATH); throws FFMPEG_NOT_FOUND.
export async function resolveFfmpeg(
  env: NodeJS.ProcessEnv = process.env,
  options: ResolveFfmpegOptions = {},
): Promise<FfmpegBinary> {
  const platform = options.platform ?? process.platform;
  const tried: string[] = [];
  // the cache folder of the machine this runs on (`platform` may be another OS's conventions)
  const cacheDir = options.cacheDir === undefined ? userCacheDir(env) : options.cacheDir;
  const probe: Probe = { env, platform, cacheDir };

  const envPath = env[FFMPEG_ENV_VAR];
  if (envPath !== undefined && envPath.trim() !== '') {
    // an explicit setting that is wrong is a configuration error, not a reason to fall through
    return await resolveFromEnv(envPath.trim(), probe);
  }
  tried.push(`${FFMPEG_ENV_VAR}: not set`);

  const staticPath = (options.locateStaticBinary ?? locateFfmpegStatic)();
  if (staticPath === null) {
    tried.push('ffmpeg-static: package not installed (its install needs GitHub access)');
  } else {
    const found = await tryCandidate(staticPath, 'ffmpeg-static', probe, tried);
    if (found) {
      return found;
    }
  }

  const pathDirs = searchPathDirs(env);
  const onPath = await findExecutableOnPath('ffmpeg', pathDirs, platform);
  if (onPath === null) {
    tried.push(
      pathDirs.length === 0
        ? 'PATH: empty'
        : `PATH: no executable 'ffmpeg' in ${pathDirs.join(path.delimiter)}`,
    );
  } else {
    const found = await tryCandidate(onPath, 'path', probe, tried);
    if (found) {
      return found;
    }
  }

  throw new AppError(
    'FFMPEG_NOT_FOUND',
    `ffmpeg was not found. Tried: ${tried.join('; ')}. ${installHint(platform)}`,
    { tried },
  );
}

// Forgets the capability probes held in this process's memory (the cache file needs no clearing:
// an entry counts only while the binary keeps its size and mtime).
export function clearFfmpegBinaryCache(): void {
  capabilityCache.clear();
}

// Version from the first line of `ffmpeg -version` ("ffmpeg version 5.1.9-0+deb12u1 …"), or null.
export function parseFfmpegVersion(versionOutput: string): string | null {
  const firstLine = versionOutput.split(/\r?\n/, 1)[0] ?? '';
  const match = /^ffmpeg version (\S+)/.exec(firstLine.trim());
  return match?.[1] ?? null;
}

// True when `ffmpeg -devices` output lists `device` with demuxing (input) support.
export function hasInputDevice(devicesOutput: string, device: string): boolean {
  // rows look like " D  x11grab         X11 screen capture, using XCB" (flags D/E, then names)
  for (const line of devicesOutput.split(/\r?\n/)) {
    const match = /^ ([D.\s])([E.\s]) (\S+)/.exec(line);
    if (match?.[1] === 'D' && (match[3] ?? '').split(',').includes(device)) {
      return true;
    }
  }
  return false;
}

// True when `ffmpeg -filters` output lists the filter `name` (e.g. ddagrab, a source filter).
export function hasFilter(filtersOutput: string, name: string): boolean {
  // rows look like " ... ddagrab           |->V       Grab Windows Desktop images…" (flags
  // T/S/C or dots, the name, then the pads: `|` is "no input", so sources read `|->V`)
  return filtersOutput
    .split(/\r?\n/)
    .some((line) => /^\s*[.TSC]{3}\s+(\w\S*)\s+\S+->/.exec(line)?.[1] === name);
}

// The screen capture inputs of a build, from its `-devices` and `-filters` output.
export function parseCaptureDevices(
  devicesOutput: string,
  filtersOutput: string,
): CaptureDeviceSupport {
  return {
    x11grab: hasInputDevice(devicesOutput, 'x11grab'),
    avfoundation: hasInputDevice(devicesOutput, 'avfoundation'),
    gdigrab: hasInputDevice(devicesOutput, 'gdigrab'),
    ddagrab: hasFilter(filtersOutput, 'ddagrab'),
  };
}

/** One device of `ffmpeg -f avfoundation -list_devices true -i ""`. */
export type AvfoundationDevice = {
  /** The device index ffmpeg accepts in `-i "<index>:none"`. */
  index: number;
  /** Its name, e.g. `FaceTime HD Camera` or `Capture screen 0`. */
  name: string;
};

/** The device list of an avfoundation build. */
export type AvfoundationDevices = {
  video: AvfoundationDevice[];
  audio: AvfoundationDevice[];
  /** The screens among the video devices: `Capture screen N` → N and its device index. */
  screens: { screen: number; index: number }[];
};

// Parses the device list avfoundation prints on stderr ("[AVFoundation indev @ 0x…] [1] Capture
// screen 0"): cameras come first, so a screen's device index shifts when a camera is plugged in.
export function parseAvfoundationDevices(listOutput: string): AvfoundationDevices {
  const out: AvfoundationDevices = { video: [], audio: [], screens: [] };
  let section: 'video' | 'audio' | null = null;
  for (const line of listOutput.split(/\r?\n/)) {
    if (/AVFoundation video devices:/.test(line)) {
      section = 'video';
      continue;
    }
    if (/AVFoundation audio devices:/.test(line)) {
      section = 'audio';
      continue;
    }
    const match = /\]\s*\[(\d+)\]\s+(.+?)\s*$/.exec(line);
    if (section === null || !match) {
      continue;
    }
    const device = { index: Number(match[1]), name: match[2]! };
    out[section].push(device);
    const screen = section === 'video' ? /^Capture screen (\d+)$/.exec(device.name) : null;
    if (screen) {
      out.screens.push({ screen: Number(screen[1]), index: device.index });
    }
  }
  return out;
}

// Lists avfoundation's devices with `ffmpeg -f avfoundation -list_devices true -i ""` (macOS only;
// ffmpeg prints the list on stderr and then fails to open the empty input, which is expected).
export async function listAvfoundationDevices(ffmpegPath: string): Promise<AvfoundationDevices> {
  const args = ['-hide_banner', '-f', 'avfoundation', '-list_devices', 'true', '-i', ''];
  const result = await runCommand(ffmpegPath, args, {
    timeoutMs: QUERY_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxStdoutBytes: QUERY_MAX_BUFFER_BYTES,
  });
  const devices = parseAvfoundationDevices(result.stderr);
  if (devices.video.length === 0 && devices.audio.length === 0) {
    const tail = tailLines(result.stderr, 3).split('\n').join(' | ');
    throw new AppError(
      'FFMPEG_FAILED',
      `'${ffmpegPath} ${args.join(' ')}' listed no avfoundation devices` +
        (tail ? ` (${tail})` : '') +
        '.',
      { path: ffmpegPath, code: result.code },
      'Install an ffmpeg built with avfoundation (brew install ffmpeg) or point CUA_FFMPEG at one.',
    );
  }
  return devices;
}

// True when `ffmpeg -encoders` output lists the encoder `name`.
export function hasEncoder(encodersOutput: string, name: string): boolean {
  // rows look like " V....D libx264              libx264 H.264 / AVC / …"
  return encodersOutput
    .split(/\r?\n/)
    .some((line) => /^\s*[VAS][.A-Z]{5}\s+(\S+)/.exec(line)?.[1] === name);
}

/** How one resolution probes its candidates. */
type Probe = { env: NodeJS.ProcessEnv; platform: NodeJS.Platform; cacheDir: string | null };

async function resolveFromEnv(envPath: string, probe: Probe): Promise<FfmpegBinary> {
  const { platform } = probe;
  const absolute = path.resolve(envPath);
  const problem = await executableProblem(absolute);
  const unsetHint = `Point ${FFMPEG_ENV_VAR} at an ffmpeg executable, or unset it to use ffmpeg from PATH. ${installHint(platform)}`;
  if (problem !== null) {
    throw new AppError(
      'FFMPEG_NOT_FOUND',
      `${FFMPEG_ENV_VAR} is set to '${envPath}', but ${describeProblem(problem, absolute)}. ${unsetHint}`,
      { envVar: FFMPEG_ENV_VAR, path: envPath, problem },
    );
  }
  try {
    return await describeBinary(absolute, 'env', probe);
  } catch (error) {
    throw new AppError(
      'FFMPEG_NOT_FOUND',
      `${FFMPEG_ENV_VAR} is set to '${envPath}', but it did not run as ffmpeg: ${errorMessage(error)}. ${unsetHint}`,
      { envVar: FFMPEG_ENV_VAR, path: envPath },
    );
  }
}

async function tryCandidate(
  candidate: string,
  source: FfmpegSource,
  probe: Probe,
  tried: string[],
): Promise<FfmpegBinary | null> {
  const problem = await executableProblem(candidate);
  if (problem !== null) {
    tried.push(`${source}: ${describeProblem(problem, candidate)}`);
    return null;
  }
  try {
    return await describeBinary(candidate, source, probe);
  } catch (error) {
    tried.push(`${source}: '${candidate}' did not run as ffmpeg (${errorMessage(error)})`);
    return null;
  }
}

async function describeBinary(
  binaryPath: string,
  source: FfmpegSource,
  probe: Probe,
): Promise<FfmpegBinary> {
  const capabilities = await cachedCapabilities(binaryPath, probe.cacheDir);
  return {
    path: binaryPath,
    source,
    ...capabilities,
    ffprobePath: await findFfprobe(binaryPath, probe.env, probe.platform),
  };
}

// The capabilities of the binary: from this process's memory, else the cache file, else queried
// (and then written to the cache file).
async function cachedCapabilities(
  binaryPath: string,
  cacheDir: string | null,
): Promise<FfmpegCapabilities> {
  const info = await stat(binaryPath);
  const id = { realPath: await realpath(binaryPath), size: info.size, mtimeMs: info.mtimeMs };
  const key = `${id.realPath}\0${id.mtimeMs}\0${id.size}\0${cacheDir}`;
  let pending = capabilityCache.get(key);
  if (!pending) {
    pending = (async () => {
      const cached = cacheDir === null ? null : await readCachedCapabilities(cacheDir, id);
      if (cached) {
        return cached;
      }
      const queried = await queryCapabilities(binaryPath);
      if (cacheDir !== null) {
        await writeCachedCapabilities(cacheDir, id, queried);
      }
      return queried;
    })();
    capabilityCache.set(key, pending);
  }
  try {
    return await pending;
  } catch (error) {
    capabilityCache.delete(key);
    throw error;
  }
}

async function queryCapabilities(binaryPath: string): Promise<FfmpegCapabilities> {
  const [versionOutput, devicesOutput, encodersOutput, filtersOutput] = await Promise.all([
    runQuery(binaryPath, ['-version']),
    runQuery(binaryPath, ['-hide_banner', '-devices']),
    runQuery(binaryPath, ['-hide_banner', '-encoders']),
    runQuery(binaryPath, ['-hide_banner', '-filters']),
  ]);
  const version = parseFfmpegVersion(versionOutput);
  if (version === null) {
    const firstLine = versionOutput.split(/\r?\n/, 1)[0] ?? '';
    throw new Error(`'-version' printed ${firstLine ? `'${firstLine}'` : 'nothing'}`);
  }
  const captureDevices = parseCaptureDevices(devicesOutput, filtersOutput);
  return {
    version,
    hasX11grab: captureDevices.x11grab,
    hasLibx264: hasEncoder(encodersOutput, 'libx264'),
    captureDevices,
  };
}

/** Runs one capability query; resolves stdout, rejects with the exit status and stderr tail. */
async function runQuery(binaryPath: string, args: string[]): Promise<string> {
  const result = await runCommand(binaryPath, args, {
    timeoutMs: QUERY_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxStdoutBytes: QUERY_MAX_BUFFER_BYTES,
  });
  if (result.code === 0 && !result.isTimedOut) {
    return result.stdout;
  }
  const status = result.isTimedOut
    ? `timed out after ${QUERY_TIMEOUT_MS} ms`
    : result.code === null
      ? `killed by ${result.signal}`
      : `exit code ${result.code}`;
  const tail = tailLines(result.stderr, 3).split('\n').join(' | ');
  throw new Error(`'${args.join(' ')}' failed: ${status}${tail ? ` (${tail})` : ''}`);
}

/** ffmpeg-static's exported path (asar-unpacked), or null when the package is absent. */
function locateFfmpegStatic(): string | null {
  const requireFromHere = createRequire(import.meta.url);
  let exported: unknown;
  try {
    exported = requireFromHere('ffmpeg-static');
  } catch {
    return null;
  }
  if (typeof exported !== 'string' || exported === '') {
    // the package exports null on platforms it has no binary for
    return null;
  }
  // packaged apps: binaries live in app.asar.unpacked, but the module reports the asar path
  return exported.replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`);
}

async function findFfprobe(
  ffmpegPath: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Promise<string | null> {
  const extension = platform === 'win32' ? path.extname(ffmpegPath) : '';
  const sibling = path.join(path.dirname(ffmpegPath), `ffprobe${extension}`);
  if ((await executableProblem(sibling)) === null) {
    return sibling;
  }
  return await findExecutableOnPath('ffprobe', searchPathDirs(env), platform);
}

type ExecutableProblem = 'missing' | 'not-a-file' | 'not-executable';

async function executableProblem(file: string): Promise<ExecutableProblem | null> {
  try {
    const info = await stat(file);
    if (!info.isFile()) {
      return 'not-a-file';
    }
  } catch {
    return 'missing';
  }
  try {
    await access(file, fsConstants.X_OK);
    return null;
  } catch {
    return 'not-executable';
  }
}

function describeProblem(problem: ExecutableProblem, file: string): string {
  switch (problem) {
    case 'missing':
      return `'${file}' does not exist`;
    case 'not-a-file':
      return `'${file}' is not a file`;
    case 'not-executable':
      return `'${file}' is not executable (chmod +x '${file}')`;
  }
}

function searchPathDirs(env: NodeJS.ProcessEnv): string[] {
  // Windows spells it "Path"; a copied env object is not case-insensitive like process.env
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATH');
  const value = key === undefined ? '' : (env[key] ?? '');
  return value.split(path.delimiter).filter((dir) => dir !== '');
}

async function findExecutableOnPath(
  name: string,
  dirs: readonly string[],
  platform: NodeJS.Platform,
): Promise<string | null> {
  const names = platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of dirs) {
    for (const candidateName of names) {
      const candidate = path.resolve(dir, candidateName);
      if ((await executableProblem(candidate)) === null) {
        return candidate;
      }
    }
  }
  return null;
}

function installHint(platform: NodeJS.Platform): string {
  const install =
    platform === 'darwin'
      ? 'brew install ffmpeg'
      : platform === 'win32'
        ? 'winget install Gyan.FFmpeg'
        : 'sudo apt-get install ffmpeg';
  return `Install ffmpeg (${install}) or set ${FFMPEG_ENV_VAR}=/path/to/ffmpeg.`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
