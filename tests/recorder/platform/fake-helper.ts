// A scripted stand-in for the accessibility helper client (docs/helper-protocol.md §3): the
// macOS and Windows platform parts are tested against it here, where no helper can run.
import type {
  ActiveWindowResult,
  HelperDisplay,
  PermissionsResult,
} from '../../../src/axtree/platform/helper-protocol';
import type { PlatformHelper, PlatformHelperFactory } from '../../../src/recorder/platform/types';

/** What the fake answers; functions are called per request. */
export type FakeHelperScript = {
  displays?: () => HelperDisplay[];
  activeWindow?: () => ActiveWindowResult | null;
  permissions?: () => PermissionsResult;
  /** Makes start() reject. */
  startError?: Error;
};

/** Every client the factory made, with the calls each got; `emitDisplays` sends a `displays`
 * event to every subscribed client. */
export type FakeHelperLog = {
  calls: string[];
  running: number;
  made: number;
  emitDisplays: (displays: HelperDisplay[]) => void;
};

// A factory of fake helper clients sharing one log.
export function fakeHelperFactory(script: FakeHelperScript): {
  factory: PlatformHelperFactory;
  log: FakeHelperLog;
} {
  const listeners = new Set<(displays: HelperDisplay[]) => void>();
  const log: FakeHelperLog = {
    calls: [],
    running: 0,
    made: 0,
    emitDisplays: (displays) => {
      for (const listener of [...listeners]) {
        listener(displays);
      }
    },
  };
  const factory: PlatformHelperFactory = () => {
    log.made += 1;
    let isRunning = false;
    const call = <T>(name: string, answer: (() => T) | undefined): Promise<T> => {
      log.calls.push(name);
      if (!isRunning) {
        return Promise.reject(new Error(`${name} before start`));
      }
      if (!answer) {
        return Promise.reject(new Error(`${name}: not scripted`));
      }
      try {
        return Promise.resolve(answer());
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const helper: PlatformHelper = {
      start: () => {
        log.calls.push('start');
        if (script.startError) {
          return Promise.reject(script.startError);
        }
        isRunning = true;
        log.running += 1;
        return Promise.resolve({ backend: 'fake' });
      },
      displays: () => call('displays', script.displays),
      activeWindow: () => call('activeWindow', script.activeWindow),
      permissions: () => call('permissions', script.permissions),
      onDisplaysChanged: (listener) => {
        listeners.add(listener);
        return () => {
          listeners.delete(listener);
        };
      },
      stop: () => {
        log.calls.push('stop');
        if (isRunning) {
          isRunning = false;
          log.running -= 1;
        }
        return Promise.resolve();
      },
    };
    return helper;
  };
  return { factory, log };
}
