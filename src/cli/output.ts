// The CLI's only console writer: plain lines, JSON for scripts, and a TTY progress bar.

/** Writes one line to stdout. */
export function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Writes one line to stderr. */
export function errLine(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Prints a value as pretty JSON on stdout. */
export function outJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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
        process.stderr.write(`\r${line.slice(0, 100).padEnd(last.length)}`);
        last = line;
      }
    },
    finish: () => {
      if (enabled && last) {
        process.stderr.write('\n');
      }
    },
  };
}
