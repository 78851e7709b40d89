// Runs a small X11 command-line tool (xdpyinfo, xkbcomp) to completion with a time limit.
import { execFile } from 'node:child_process';

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
  return await new Promise<ToolResult>((resolve) => {
    execFile(
      command,
      [...args],
      {
        env,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ code: 0, stdout, stderr, errno: null, isTimedOut: false });
          return;
        }
        const failure = error as NodeJS.ErrnoException & { code?: unknown; killed?: boolean };
        resolve({
          code: typeof failure.code === 'number' ? failure.code : null,
          stdout,
          stderr,
          errno: typeof failure.code === 'string' ? failure.code : null,
          isTimedOut: failure.killed === true,
        });
      },
    );
  });
}
