// The recording parts macOS and Windows both build on the accessibility helper
// (docs/helper-protocol.md; docs/platform-macos-windows.md): the accessibility adapter, the
// display watcher, the window tracker, the pre-capture checks and the input-hook explanations,
// all leases on one helper process (shared-helper.ts). Each OS passes only what differs.
import type { AccessibilityAdapter } from '../../axtree/adapter';
import type { PermissionsResult } from '../../axtree/platform/helper-protocol';
import type { ChildLauncher } from '../../infra/child-launcher';
import type { AppError } from '../../shared/errors';
import { monotonicNowMs } from '../clock';
import type { DisplayInfo } from '../display-info';
import { explainInputHookFailure } from './failures';
import { helperFactory, type HELPER_ENTRY } from './helper-client';
import type { ChosenDisplay } from './helper-displays';
import {
  CAPTURE_DISPLAY_ENV_VAR,
  chooseDisplay,
  HelperDisplayWatcher,
  withHelper,
} from './helper-displays';
import { HelperWindowTracker } from './helper-windows';
import type { PlatformHelperFactory, PlatformPartOptions, RecorderPlatform } from './types';

/** Test seams of the helper-based platforms; production callers pass nothing. */
export type HelperPlatformSeams = {
  /** How the helper child starts (default: detected, src/infra/child-launcher.ts). */
  launcher?: ChildLauncher;
  /** Helper clients for displays, permissions and the window timeline. */
  helper?: PlatformHelperFactory;
  /** The accessibility adapter (default: a helper client, which is one). */
  accessibility?: (options: PlatformPartOptions) => AccessibilityAdapter;
};

/** What differs between the macOS and the Windows parts. */
export type HelperPartsOptions = HelperPlatformSeams & {
  /** The OS whose helper runs (its launcher entry, its input-hook explanations). */
  os: keyof typeof HELPER_ENTRY;
  /** The accessibility API, stored in the recording's capture facts. */
  accessibilityApi: string;
  /** The recorder's DisplayInfo of a chosen display (the platform keeps its capture source). */
  remember: (chosen: ChosenDisplay) => DisplayInfo;
  /** The pre-capture check of the helper's permissions: an error refuses the recording. Absent:
   * no preflight. */
  permissionError?: (permissions: PermissionsResult) => AppError | null;
};

/** The parts of a RecorderPlatform the helper provides. */
export type HelperParts = Pick<
  RecorderPlatform,
  | 'accessibilityApi'
  | 'accessibility'
  | 'displays'
  | 'windows'
  | 'preflight'
  | 'explainStartFailure'
>;

// The helper-based parts of a platform, and the display read at the start (the one chosen by
// CUA_CAPTURE_DISPLAY, else the primary one) for its capture backend.
export function helperParts(options: HelperPartsOptions): {
  parts: HelperParts;
  readChosenDisplay: (env: NodeJS.ProcessEnv) => Promise<ChosenDisplay>;
} {
  const makeClient = helperFactory(options.os, options.launcher);
  const makeHelper = options.helper ?? makeClient;
  const makeAccessibility = options.accessibility ?? makeClient;
  const { remember, permissionError } = options;

  const parts: HelperParts = {
    accessibilityApi: options.accessibilityApi,
    accessibility: (part) => makeAccessibility(part),
    // the helper's displays events: a moved, added or rescaled display starts a new segment
    displays: ({ now, env }) =>
      new HelperDisplayWatcher({
        helper: makeHelper({ now, env }),
        toDisplayInfo: (list) => remember(chooseDisplay(list, env[CAPTURE_DISPLAY_ENV_VAR])),
      }),
    windows: ({ now, env }) => new HelperWindowTracker({ helper: makeHelper({ now, env }), now }),
    ...(permissionError
      ? {
          preflight: async (env: NodeJS.ProcessEnv): Promise<void> => {
            const permissions = await withHelper(makeHelper, env, monotonicNowMs, (helper) =>
              helper.permissions(),
            );
            const denied = permissionError(permissions);
            if (denied) {
              throw denied;
            }
          },
        }
      : {}),
    explainStartFailure: (error) => explainInputHookFailure(options.os, error),
  };
  return {
    parts,
    readChosenDisplay: (env) =>
      withHelper(makeHelper, env, monotonicNowMs, async (helper) =>
        chooseDisplay(await helper.displays(), env[CAPTURE_DISPLAY_ENV_VAR]),
      ),
  };
}
