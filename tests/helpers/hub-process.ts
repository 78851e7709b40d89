// A real team hub for tests with the embedded default: `cua-annotator hub --data DIR` as a child
// process, accounts made with `hub user add`, stopped by its pid. A shorthand over
// tests/hub/hub-process.ts (which also takes `--database`/`--storage` and signs libraries in).
import {
  addHubUser as addUser,
  startHubProcess,
  type HubProcess as StartedHub,
} from '../hub/hub-process';

/** A running hub: its process, URL and port. */
export type HubProcess = StartedHub;

/** Starts `hub --data dataDir [extraArgs…] --port port --json` (port 0: a free one) and waits
 * for its URL. */
export function startHub(dataDir: string, port = 0, extraArgs: string[] = []): Promise<HubProcess> {
  return startHubProcess(['--data', dataDir, ...extraArgs], { port });
}

/** Stops the hub (SIGKILL by default: as if the machine lost it) and waits for its exit. */
export function stopHub(hub: HubProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  return hub.stop(signal);
}

/** Adds an account with `hub user add` and answers its one-time password. */
export function addHubUser(dataDir: string, user: string, roles: string[]): Promise<string> {
  return addUser(user, roles, ['--data', dataDir]);
}
