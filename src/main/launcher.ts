// The desktop app's child launcher (src/infra/child-launcher.ts): our child-process entries
// (the input hook) run as Electron utility processes from their bundles beside the main bundle
// (out/main/<entry>.js, built by electron.vite.config.ts), since the app has no Node executable
// of its own and its fuses forbid ELECTRON_RUN_AS_NODE.
import path from 'node:path';
import type { ForkOptions, UtilityProcess } from 'electron';
import type { ChildEntry, ChildLauncher } from '../infra/child-launcher';
import { UtilityChild } from './utility-child';

/** What the launcher needs of Electron's utilityProcess module. */
export type UtilityProcessModule = {
  fork: (modulePath: string, args?: string[], options?: ForkOptions) => UtilityProcess;
};

/** Options of {@link utilityProcessLauncher}. */
export type UtilityLauncherOptions = {
  /** Folder of the entry bundles: out/main beside the main bundle. */
  bundleDir: string;
};

/** The launcher port plus the way Electron starts an entry: a utility process. */
export type UtilityLauncher = ChildLauncher & {
  /**
   * Starts `entry` with `args` as a utility process: stdout and stderr piped, stdin carried by
   * messages (./utility-child.ts), the environment given (DISPLAY, XAUTHORITY), named in the
   * task manager after the entry. The result has the ChildProcess surface process owners use.
   */
  fork: (entry: ChildEntry, args: readonly string[], env: NodeJS.ProcessEnv) => UtilityChild;
};

// The launcher of the packaged or built app: <bundleDir>/<entry>.js in a utility process.
export function utilityProcessLauncher(
  utility: UtilityProcessModule,
  options: UtilityLauncherOptions,
): UtilityLauncher {
  const modulePathOf = (entry: ChildEntry): string => path.join(options.bundleDir, `${entry}.js`);
  return {
    kind: 'bundled',
    // the port's command form: process.execPath is the Electron binary here, so callers that
    // spawn rather than fork must use `fork` (it is what `modulePath` is for)
    command: (entry) => {
      const modulePath = modulePathOf(entry);
      return { file: process.execPath, args: [modulePath], modulePath };
    },
    fork: (entry, args, env) =>
      new UtilityChild(
        utility.fork(modulePathOf(entry), [...args], {
          env: { ...env },
          stdio: 'pipe',
          serviceName: `cua-annotator ${entry}`,
        }),
      ),
  };
}
