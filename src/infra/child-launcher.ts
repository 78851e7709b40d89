// How our own child-process entries start (docs/architecture.md §5): a port the composition root
// provides, so the same supervisor runs the input hook from the TypeScript sources in development
// and from the built JavaScript in an install (out/node/<entry>.js beside the CLI bundle, see
// vite.node.config.ts). An Electron host implements the same port and starts the modulePath in a
// utilityProcess instead of spawning file + args.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Child-process entries; each name is also the bundle's file name (out/node/<entry>.js). */
export const CHILD_ENTRIES = [
  'hook-child',
  'ax-helper-win32',
  'ax-helper-darwin',
  'replay-driver',
] as const;

/** One child-process entry. */
export type ChildEntry = (typeof CHILD_ENTRIES)[number];

/** How to run one entry; the entry's own arguments go after `args`. */
export type ChildCommand = {
  /** Executable to spawn (Node: `process.execPath`). */
  file: string;
  /** Arguments before the entry's own: the loader (source) and the entry's module. */
  args: string[];
  /** The entry's module file, for hosts that fork a module instead (Electron's utilityProcess). */
  modulePath: string;
};

/** The launcher port: where an entry's code is and how to start it. */
export type ChildLauncher = {
  /** 'source': TypeScript through tsx (development, tests); 'bundled': built JavaScript. */
  readonly kind: 'source' | 'bundled';
  /** The command that runs `entry`. */
  command: (entry: ChildEntry) => ChildCommand;
  /**
   * Starts `entry` with its own `args` in a host-specific way instead of spawning `command`
   * (Electron's utilityProcess, src/main/launcher.ts); the result has the ChildProcess surface
   * process owners use (stdio streams, kill, exit/close). Absent: the command is spawned.
   */
  fork?: (entry: ChildEntry, args: readonly string[], env: NodeJS.ProcessEnv) => ForkedChild;
};

/**
 * What a launcher's fork() returns: an object with the ChildProcess surface process owners use
 * (pid, stdin/stdout/stderr streams, kill, 'exit'/'close'/'error' events); the host's adapter
 * promises it (src/main/utility-child.ts), its tests check it.
 */
export type ForkedChild = object;

/** Source file of each entry, relative to the package root. */
const SOURCE_ENTRIES: Readonly<Record<ChildEntry, string>> = {
  'hook-child': 'src/recorder/input/hook-child.ts',
  // the accessibility helpers (docs/helper-protocol.md), run on their own OS only
  'ax-helper-win32': 'src/helpers/win32/main.ts',
  'ax-helper-darwin': 'src/helpers/darwin/main.ts',
  // the replay driver (docs/replay.md §4): the only module that loads nut-js
  'replay-driver': 'src/replay/driver-child.ts',
};

/** The folder of this module: src/infra/ in the sources, out/node/ in the bundle. */
const MODULE_DIR = path.dirname(fileURLToPath(import.meta.url));

/** The package's name in its package.json (how the package root is recognised). */
const PACKAGE_NAME = 'cua-annotator';

// The nearest folder at or above `fromDir` holding this package's package.json (not the cwd:
// a CLI started from anywhere finds its own files).
export function findPackageRoot(fromDir: string = MODULE_DIR): string {
  for (let dir = path.resolve(fromDir); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && readPackageName(manifest) === PACKAGE_NAME) {
      return dir;
    }
    if (path.dirname(dir) === dir) {
      throw new Error(
        `child launcher: no package.json of ${PACKAGE_NAME} at or above '${fromDir}'; ` +
          'run from the cua-annotator folder or install it again',
      );
    }
  }
}

function readPackageName(manifest: string): unknown {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}

/** Options of {@link sourceLauncher}. */
export type SourceLauncherOptions = {
  /** Package root holding bin/run-ts.mjs and src/; default: found above this module. */
  packageRoot?: string;
  /** Node executable; default `process.execPath`. */
  execPath?: string;
};

// Runs an entry's TypeScript source with Node and tsx's loader (bin/run-ts.mjs): development and
// tests, where no build is needed and tsx (a development dependency) is installed.
export function sourceLauncher(options: SourceLauncherOptions = {}): ChildLauncher {
  const root = options.packageRoot ?? findPackageRoot();
  const execPath = options.execPath ?? process.execPath;
  return {
    kind: 'source',
    command: (entry) => {
      const modulePath = path.join(root, SOURCE_ENTRIES[entry]);
      return {
        file: execPath,
        args: [path.join(root, 'bin', 'run-ts.mjs'), modulePath],
        modulePath,
      };
    },
  };
}

/** Options of {@link bundledLauncher}. */
export type BundledLauncherOptions = {
  /** Folder of the running bundle (out/node/); default: this module's folder. */
  bundleDir?: string;
  /** Node executable; default `process.execPath`. */
  execPath?: string;
};

// Runs an entry's bundle, `<bundle dir>/<entry>.js`, with plain Node: an install, no tsx.
export function bundledLauncher(options: BundledLauncherOptions = {}): ChildLauncher {
  const dir = options.bundleDir ?? MODULE_DIR;
  const execPath = options.execPath ?? process.execPath;
  return {
    kind: 'bundled',
    command: (entry) => {
      const modulePath = path.join(dir, `${entry}.js`);
      return { file: execPath, args: [modulePath], modulePath };
    },
  };
}

/** The Node bundle's folder (…/out/node) holding `moduleDir` (itself or an ancestor), or null. */
export function bundleDirOf(moduleDir: string): string | null {
  for (let dir = path.resolve(moduleDir); ; dir = path.dirname(dir)) {
    if (path.basename(dir) === 'node' && path.basename(path.dirname(dir)) === 'out') {
      return dir;
    }
    if (path.dirname(dir) === dir) {
      return null;
    }
  }
}

// The launcher for the code that is running: bundled when this module was loaded from under
// out/node/ (entries sit in that folder, chunks may sit below it), else the sources through tsx.
export function detectChildLauncher(moduleDir: string = MODULE_DIR): ChildLauncher {
  const bundleDir = bundleDirOf(moduleDir);
  return bundleDir === null ? sourceLauncher() : bundledLauncher({ bundleDir });
}
