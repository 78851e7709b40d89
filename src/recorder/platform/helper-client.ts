// The accessibility helper as the macOS and Windows platforms start it (docs/helper-protocol.md):
// our TypeScript helper program (src/helpers/<os>/) run as a child through the child launcher's
// 'ax-helper-darwin' / 'ax-helper-win32' entry, spoken to by the protocol client. Nothing here
// loads koffi: only the helper child does.
import type { ChildLauncher } from '../../infra/child-launcher';
import type { ChildProcess } from '../../infra/spawn-child';
import { detectChildLauncher } from '../../infra/child-launcher';
import { createNativeHelperAdapter } from '../accessibility/native-helper-process';
import { sharedHelperFactory, type HelperClient } from './shared-helper';
import type { PlatformPartOptions } from './types';

/** The launcher entry of each OS's helper. */
export const HELPER_ENTRY = {
  darwin: 'ax-helper-darwin',
  win32: 'ax-helper-win32',
} as const;

// A factory of helper clients (not started) for `os`, through `launcher` (default detected). A
// client is both a PlatformHelper (displays, permissions, active window) and an accessibility
// adapter; the clients one factory makes are leases on one helper process
// (shared-helper.ts), so a recording runs one helper, not one per part.
export function helperFactory(
  os: keyof typeof HELPER_ENTRY,
  launcher?: ChildLauncher,
): (options: PlatformPartOptions) => HelperClient {
  return sharedHelperFactory(({ env, now }) => {
    const host = launcher ?? detectChildLauncher();
    const entry = HELPER_ENTRY[os];
    const command = host.command(entry);
    const { fork } = host;
    return createNativeHelperAdapter({
      command: command.file,
      args: command.args,
      env,
      now,
      // the desktop app: a utility process from the bundled entry, as the input hook runs
      ...(fork ? { fork: () => fork(entry, [], env) as unknown as ChildProcess } : {}),
    });
  });
}
