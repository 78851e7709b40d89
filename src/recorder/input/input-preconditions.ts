// What the global input hook needs before its child may start (docs/platform-linux.md §3): on X11 a
// reachable DISPLAY whose server has the RECORD extension. uiohook SIGABRTs without either, so
// the parent checks first and reports INPUT_HOOK_UNAVAILABLE with what to do instead.
import { AppError } from '../../shared/errors';
import { runTool } from './run-tool';

/** Options of {@link checkInputHookPreconditions}. */
export type InputHookPreconditionOptions = {
  /** Environment the hook child will get (DISPLAY, XAUTHORITY); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Platform to check for; default `process.platform`. Only X11 platforms have checks. */
  platform?: NodeJS.Platform;
  /** Limit for the `xdpyinfo` query, in ms; default 5000. */
  timeoutMs?: number;
};

/** Result of a successful check. */
export type InputHookPreconditions = {
  /** The X display the hook will use; null on non-X11 platforms. */
  display: string | null;
  /** True when RECORD was seen in the server's extension list; false when it could not be checked. */
  isRecordChecked: boolean;
  /** Why a check was skipped (e.g. xdpyinfo not installed), else null. */
  note: string | null;
};

const DEFAULT_TIMEOUT_MS = 5000;

// Extension names from `xdpyinfo` output (the indented list after "number of extensions:").
export function parseXdpyinfoExtensions(output: string): string[] {
  const lines = output.split(/\r?\n/);
  const start = lines.findIndex((line) => /^number of extensions:/.test(line));
  if (start < 0) {
    return [];
  }
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!/^\s+\S/.test(line)) {
      break;
    }
    names.push(line.trim());
  }
  return names;
}

function unavailable(message: string, details: Record<string, unknown>): AppError {
  return new AppError('INPUT_HOOK_UNAVAILABLE', message, details);
}

// Checks DISPLAY and RECORD on X11 platforms; throws INPUT_HOOK_UNAVAILABLE with a remedy.
export async function checkInputHookPreconditions(
  options: InputHookPreconditionOptions = {},
): Promise<InputHookPreconditions> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  if (platform === 'darwin' || platform === 'win32') {
    return { display: null, isRecordChecked: false, note: null };
  }
  const display = env.DISPLAY?.trim() ?? '';
  if (display === '') {
    const wayland = env.WAYLAND_DISPLAY
      ? ` This looks like a Wayland session (WAYLAND_DISPLAY=${env.WAYLAND_DISPLAY}): global input` +
        ' capture needs an X11 session (log in with "… on Xorg").'
      : '';
    throw unavailable(
      'Input capture needs an X11 display, but DISPLAY is not set. Run the recorder inside an X11 ' +
        'session, or start a virtual one (e.g. `Xvfb :99 &` and `DISPLAY=:99`).' +
        wayland,
      { display: null },
    );
  }
  const result = await runTool(
    'xdpyinfo',
    ['-display', display],
    env,
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  if (result.errno === 'ENOENT') {
    // the child still fails safely without RECORD; only the early, clear message is lost
    return {
      display,
      isRecordChecked: false,
      note: 'xdpyinfo is not installed (apt-get install x11-utils), so RECORD was not checked',
    };
  }
  if (result.code !== 0) {
    const reason = result.isTimedOut
      ? `xdpyinfo did not answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`
      : (result.stderr.trim().split(/\r?\n/).at(-1) ?? `xdpyinfo exited with ${result.code}`);
    throw unavailable(
      `Input capture cannot open the X display DISPLAY=${display} (${reason}). Check that the X ` +
        'server is running and that this user may connect to it (XAUTHORITY, xhost).',
      { display, exitCode: result.code, stderr: result.stderr.slice(-2000) },
    );
  }
  const extensions = parseXdpyinfoExtensions(result.stdout);
  if (!extensions.includes('RECORD')) {
    throw unavailable(
      `The X server on DISPLAY=${display} has no RECORD extension, which global input capture ` +
        'needs (libuiohook reads input through XRecord). Xorg and Xvfb enable it by default: ' +
        'remove `-extension RECORD` from the server command line (or add `+extension RECORD`), ' +
        'and make sure xorg.conf does not disable "RECORD" in its "Extensions" section.',
      { display, extensions },
    );
  }
  return { display, isRecordChecked: true, note: null };
}
