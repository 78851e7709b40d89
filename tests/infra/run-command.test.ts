// runCommand: exit status, stdin input, stderr tail, timeout kill, start failure, the re-run of an
// own-group command a terminal signal ended.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tailLines } from '../../src/infra/lines';
import { ProcessStartError, runCommand, runCommandChecked } from '../../src/infra/run-command';
import { AppError } from '../../src/shared/errors';

const NODE = process.execPath;

/** A command that ignores SIGTERM and would otherwise run for 30 s. */
const HUNG_SCRIPT = 'trap "" TERM; echo "ignoring SIGTERM" >&2; exec sleep 30';

describe('runCommand', () => {
  it('collects stdout, stderr and the exit code', async () => {
    const result = await runCommand(
      NODE,
      ['-e', 'process.stdout.write("out"); process.stderr.write("err"); process.exit(3)'],
      { timeoutMs: 10_000 },
    );
    expect(result).toMatchObject({
      code: 3,
      signal: null,
      stdout: 'out',
      stderr: 'err',
      isTimedOut: false,
      isStderrTruncated: false,
    });
  });

  it('writes input to stdin', async () => {
    const result = await runCommand(NODE, ['-e', 'process.stdin.pipe(process.stdout)'], {
      timeoutMs: 10_000,
      input: 'hello\nworld\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello\nworld\n');
  });

  it('keeps only the tail of stderr, from a line boundary', async () => {
    const script =
      'for (let i = 0; i < 5000; i++) { process.stderr.write(`line ${i} ${"x".repeat(20)}\\n`); }';
    const result = await runCommand(NODE, ['-e', script], {
      timeoutMs: 10_000,
      stderrTailBytes: 1024,
    });
    expect(result.isStderrTruncated).toBe(true);
    expect(result.stderr.length).toBeLessThanOrEqual(1024);
    expect(result.stderr.startsWith('line ')).toBe(true);
    expect(result.stderr.endsWith(`line 4999 ${'x'.repeat(20)}\n`)).toBe(true);
    expect(tailLines(result.stderr, 2)).toBe(
      `line 4998 ${'x'.repeat(20)}\nline 4999 ${'x'.repeat(20)}`,
    );
  });

  it('kills the child when the timeout expires', async () => {
    const started = performance.now();
    const result = await runCommand(NODE, ['-e', 'setInterval(() => {}, 1000)'], {
      timeoutMs: 200,
    });
    expect(result.isTimedOut).toBe(true);
    expect(result.code).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('escalates to SIGKILL when the child ignores SIGTERM', async () => {
    // sh ignores SIGTERM, then execs sleep, which inherits the ignored disposition (no
    // grandchild holds the pipes); sh starts in milliseconds, well inside the limit
    const result = await runCommand('sh', ['-c', HUNG_SCRIPT], {
      timeoutMs: 500,
      killGraceMs: 300,
    });
    expect(result.isTimedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(result.stderr).toBe('ignoring SIGTERM\n');
  });

  it('rejects with ProcessStartError when the command does not exist', async () => {
    let error: unknown = null;
    try {
      await runCommand('/nonexistent/cua-command', [], { timeoutMs: 1_000 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProcessStartError);
    expect((error as ProcessStartError).errno).toBe('ENOENT');
    expect((error as ProcessStartError).message).toContain('/nonexistent/cua-command');
  });

  // what a terminal's Ctrl+C does to an own-group child caught between its fork and its setsid
  it('runs an own-group command again when a terminal signal ended it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-run-'));
    try {
      // ends itself by SIGINT on its first five runs (a Ctrl+C held down), succeeds on the sixth
      const script = `n=$(cat "$1/runs" 2>/dev/null || echo 0); echo $((n + 1)) > "$1/runs"
        if [ "$n" -ge 5 ]; then echo done; else kill -INT $$; fi`;
      const shared = await runCommand('/bin/sh', ['-c', script, 'sh', dir], { timeoutMs: 10_000 });
      expect(shared).toMatchObject({ signal: 'SIGINT', stdout: '' });
      fs.rmSync(path.join(dir, 'runs'));
      const own = await runCommand('/bin/sh', ['-c', script, 'sh', dir], {
        timeoutMs: 10_000,
        isOwnProcessGroup: true,
      });
      expect(own).toMatchObject({ code: 0, signal: null, stdout: 'done\n' });
      expect(fs.readFileSync(path.join(dir, 'runs'), 'utf8').trim()).toBe('6');
      // a SIGTERM is not a terminal's: it stays the result
      const term = await runCommand('/bin/sh', ['-c', 'kill -TERM $$'], {
        timeoutMs: 10_000,
        isOwnProcessGroup: true,
      });
      expect(term.signal).toBe('SIGTERM');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runCommandChecked', () => {
  it('SIGKILLs a hung child after the grace and rejects with COMMAND_TIMEOUT naming it', async () => {
    const started = performance.now();
    let error: unknown = null;
    try {
      await runCommandChecked('sh', ['-c', HUNG_SCRIPT], { timeoutMs: 500, killGraceMs: 400 });
    } catch (e) {
      error = e;
    }
    const elapsedMs = performance.now() - started;
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect(appError.code).toBe('COMMAND_TIMEOUT');
    expect(appError.message).toContain("'sh'");
    expect(appError.message).toContain('SIGKILL');
    expect(appError.message).toContain('ignoring SIGTERM');
    expect(appError.details).toMatchObject({ command: 'sh', signal: 'SIGKILL' });
    // the timeout plus the grace, not the 30 s the command asked for
    expect(elapsedMs).toBeGreaterThanOrEqual(850);
    expect(elapsedMs).toBeLessThan(10_000);
  });

  it('rejects with COMMAND_FAILED and the stderr tail for a failure status', async () => {
    let error: unknown = null;
    try {
      await runCommandChecked('sh', ['-c', 'echo "no such thing" >&2; exit 4'], {
        timeoutMs: 5_000,
      });
    } catch (e) {
      error = e;
    }
    expect((error as AppError).code).toBe('COMMAND_FAILED');
    expect((error as AppError).message).toBe("'sh' failed with exit code 4: no such thing");
  });

  it('resolves with the output when the command succeeds', async () => {
    const result = await runCommandChecked('sh', ['-c', 'echo ok'], { timeoutMs: 5_000 });
    expect(result.stdout).toBe('ok\n');
  });

  it('reports a missing command as COMMAND_NOT_FOUND', async () => {
    let error: unknown = null;
    try {
      await runCommandChecked('/nonexistent/cua-command', [], { timeoutMs: 1_000 });
    } catch (e) {
      error = e;
    }
    expect((error as AppError).code).toBe('COMMAND_NOT_FOUND');
  });
});
