// Clear failures on macOS and Windows (docs/platform-macos-windows.md §4): a permission the
// helper reports denied becomes a coded error naming the System Settings pane before anything is
// recorded, and a blocked input hook (uiohook could not start) gets the fix of its OS instead of
// the X11 one. Pure: the permission answer and the error in, the error out.
import type { PermissionsResult } from '../../axtree/platform/helper-protocol';
import { AppError } from '../../shared/errors';

/** One macOS privacy permission a recording needs, and where it is granted. */
type PermissionNeed = {
  key: keyof PermissionsResult;
  /** The name System Settings shows. */
  title: string;
  /** What is lost without it (said in the message). */
  without: string;
  /** The pane's URL (opens System Settings at that list). */
  paneUrl: string;
};

/** What a recording needs, in the order a user best grants them (each may need a relaunch). */
const MACOS_NEEDS: readonly PermissionNeed[] = [
  {
    key: 'screenRecording',
    title: 'Screen Recording',
    without:
      'the video would show only the desktop background and the menu bar, not the windows on it',
    paneUrl: 'x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture',
  },
  {
    key: 'accessibility',
    title: 'Accessibility',
    without:
      'the input hook cannot start (uiohook needs it for its event tap) and no accessibility tree is read',
    paneUrl: 'x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility',
  },
  {
    key: 'inputMonitoring',
    title: 'Input Monitoring',
    without: 'keystrokes would not reach the recorder, so typing would be missing from the steps',
    paneUrl: 'x-apple.systempreferences:com.apple.preference.security?Privacy_ListenEvent',
  },
];

// The first permission a macOS recording needs that the helper reports denied, as a
// PERMISSION_DENIED error with the pane to grant it in; null when none is denied ('unknown' is
// let through: the capture itself then reports what fails).
export function macosPermissionError(
  permissions: PermissionsResult,
  appName = 'the app that runs the recorder (Terminal, or cua-annotator)',
): AppError | null {
  const denied = MACOS_NEEDS.filter((need) => permissions[need.key] === 'denied');
  const first = denied[0];
  if (!first) {
    return null;
  }
  const others = denied.slice(1).map((need) => need.title);
  return new AppError(
    'PERMISSION_DENIED',
    `macOS has not granted ${first.title} to ${appName}: ${first.without}. Nothing was recorded.` +
      (others.length ? ` Also denied: ${others.join(', ')}.` : ''),
    {
      permission: first.key,
      denied: denied.map((need) => need.key),
      paneUrl: first.paneUrl,
    },
    `Open System Settings → Privacy & Security → ${first.title}, switch on ${appName}` +
      (others.length ? ` (and do the same under ${others.join(' and ')})` : '') +
      ', then quit it and start it again (macOS applies the change on the next launch).',
  );
}

/** uiohook-napi's start errors (its addon.c messages) and what they mean. */
const HOOK_FAILURES: readonly { pattern: RegExp; os: NodeJS.Platform; fix: string; why: string }[] =
  [
    {
      // UIOHOOK_ERROR_AXAPI_DISABLED: AXIsProcessTrusted() said no
      pattern: /Failed to enable access for assistive devices|AXAPI_DISABLED/,
      os: 'darwin',
      why: 'macOS refused the input hook: the app running the recorder has no Accessibility permission',
      fix:
        'Open System Settings → Privacy & Security → Accessibility (and Input Monitoring), switch ' +
        'on the app that runs the recorder (Terminal, or cua-annotator), quit it and start it again.',
    },
    {
      // UIOHOOK_ERROR_CREATE_EVENT_PORT: CGEventTapCreate returned NULL
      pattern: /Failed to create apple event port|CREATE_EVENT_PORT/,
      os: 'darwin',
      why: 'macOS refused the input hook its event tap (Input Monitoring or Accessibility is off)',
      fix:
        'Open System Settings → Privacy & Security → Input Monitoring and Accessibility, switch on ' +
        'the app that runs the recorder (Terminal, or cua-annotator), quit it and start it again.',
    },
    {
      // UIOHOOK_ERROR_SET_WINDOWS_HOOK_EX: SetWindowsHookEx failed
      pattern: /Failed to register low level windows hook|SET_WINDOWS_HOOK_EX/,
      os: 'win32',
      why:
        'Windows refused the low-level input hook: a secure desktop (a UAC prompt, the lock or ' +
        'sign-in screen, Ctrl+Alt+Del) is in front, or the recorder runs without a desktop session',
      fix:
        'Finish or dismiss the UAC prompt, unlock the session, then start the recording again ' +
        'from a normal (non-elevated) desktop session; to record elevated apps, run the recorder ' +
        'elevated too.',
    },
  ];

// A failed recording start in `os`'s terms: an input hook uiohook could not start gets the OS's
// fix (the pane to open, the secure desktop to leave); anything else comes back unchanged.
export function explainInputHookFailure(os: NodeJS.Platform, error: AppError): AppError {
  if (error.code !== 'INPUT_HOOK_UNAVAILABLE' && error.code !== 'INPUT_HOOK_FAILED') {
    return error;
  }
  const stderr = typeof error.details?.stderr === 'string' ? error.details.stderr : '';
  const text = `${error.message}\n${stderr}`;
  const known = HOOK_FAILURES.find((f) => f.os === os && f.pattern.test(text));
  if (known) {
    return new AppError(
      error.code,
      `Keyboard and mouse capture could not start: ${known.why}. Nothing was recorded. (${error.message})`,
      { ...error.details, os, blocked: true },
      known.fix,
    );
  }
  if (os === 'darwin' || os === 'win32') {
    // uiohook's own X11 hint does not apply here: say what to check on this OS instead
    return new AppError(
      error.code,
      error.message.replace(
        / uiohook fails like this when the X display or its RECORD extension is missing\./,
        '',
      ),
      { ...error.details, os },
      os === 'darwin'
        ? 'Check System Settings → Privacy & Security → Accessibility and Input Monitoring for the app that runs the recorder, then start it again.'
        : 'Start the recording from an unlocked, non-elevated desktop session with no UAC prompt open.',
    );
  }
  return error;
}
