// Runs a small X11 command-line tool (xdpyinfo, xkbcomp, xrandr, xrdb) to completion with a time
// limit, on the infrastructure layer's one-shot runner (src/infra/run-command.ts), and describes
// every outcome in the result instead of rejecting.
import { ProcessStartError, runCommand } from '../../infra/run-command';

/** Outcome of {@link runTool}. */
export type ToolResult = {
  /** Exit code; null when the tool did not start or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** System error code when the tool could not run (`ENOENT` = not installed), else null. */
  errno: string | null;
  /** True when the time limit killed it. */
  isTimedOut: boolean;
};

/** Output cap per stream, in bytes (an xkbcomp keymap dump is ~80 KB). */
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

// Runs `command args` with `env`; never rejects (failures are described in the result).
export async function runTool(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<ToolResult> {
  try {
    const result = await runCommand(command, args, {
      env,
      timeoutMs,
      killSignal: 'SIGKILL',
      maxStdoutBytes: MAX_OUTPUT_BYTES,
      stderrTailBytes: MAX_OUTPUT_BYTES,
    });
    return {
      code: result.isTimedOut ? null : result.code,
      stdout: result.stdout,
      stderr: result.stderr,
      errno: null,
      isTimedOut: result.isTimedOut,
    };
  } catch (error) {
    if (error instanceof ProcessStartError) {
      return {
        code: null,
        stdout: '',
        stderr: '',
        errno: error.errno ?? 'ENOENT',
        isTimedOut: false,
      };
    }
    throw error;
  }
}
