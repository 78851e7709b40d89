// The CLI's only console writer: plain lines, JSON for scripts, and a TTY progress bar.
// A reader that goes away (`list | head -1`) is a normal end: later writes are dropped and the
// command finishes with its own exit code instead of dying on EPIPE.

const closed = { stdout: false, stderr: false };
let guarded = false;

/** Turns EPIPE on stdout/stderr into "that reader is gone"; other stream errors still throw. */
export function guardClosedPipes(): void {
  if (guarded) {
    return; // main() runs more than once in tests
  }
  guarded = true;
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') {
        closed[name] = true;
        return;
      }
      throw e;
    });
  }
}

function write(name: 'stdout' | 'stderr', text: string): void {
  if (closed[name]) {
    return;
  }
  try {
    process[name].write(text);
  } catch (e) {
    // a synchronous EPIPE (a pipe closed before this write) is the same normal end
    if ((e as NodeJS.ErrnoException).code !== 'EPIPE') {
      throw e;
    }
    closed[name] = true;
  }
}

/** Writes one line to stdout. */
export function out(line = ''): void {
  write('stdout', `${line}\n`);
}

/** Writes one line to stderr. */
export function errLine(line: string): void {
  write('stderr', `${line}\n`);
}

/** Prints a value as pretty JSON on stdout. */
export function outJson(value: unknown): void {
  write('stdout', `${JSON.stringify(value, null, 2)}\n`);
}

/** A progress bar on stderr; silent when stderr is not a terminal or output is JSON. */
export type Progress = { update: (done: number, label?: string) => void; finish: () => void };

/** Creates a progress bar for `total` units of work. */
export function createProgress(total: number, enabled = Boolean(process.stderr.isTTY)): Progress {
  let last = '';
  const width = 28;
  return {
    update: (done, label = '') => {
      if (!enabled) {
        return;
      }
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(ratio * width);
      const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${label}`;
      if (line !== last) {
        write('stderr', `\r${line.slice(0, 100).padEnd(last.length)}`);
        last = line;
      }
    },
    finish: () => {
      if (enabled && last) {
        write('stderr', '\n');
      }
    },
  };
}
