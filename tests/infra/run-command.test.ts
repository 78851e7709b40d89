// runProcess: exit status, stdin input, stderr tail, timeout kill, start failure.
import { describe, expect, it } from 'vitest';
import { ProcessStartError, runProcess, tailLines } from '../../../src/pipeline/media/run-process';

const NODE = process.execPath;

describe('runProcess', () => {
  it('collects stdout, stderr and the exit code', async () => {
    const result = await runProcess(
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
    const result = await runProcess(NODE, ['-e', 'process.stdin.pipe(process.stdout)'], {
      timeoutMs: 10_000,
      input: 'hello\nworld\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello\nworld\n');
  });

  it('keeps only the tail of stderr, from a line boundary', async () => {
    const script =
      'for (let i = 0; i < 5000; i++) { process.stderr.write(`line ${i} ${"x".repeat(20)}\\n`); }';
    const result = await runProcess(NODE, ['-e', script], {
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
    const result = await runProcess(NODE, ['-e', 'setInterval(() => {}, 1000)'], {
      timeoutMs: 200,
    });
    expect(result.isTimedOut).toBe(true);
    expect(result.code).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('escalates to SIGKILL when the child ignores SIGTERM', async () => {
    const script =
      'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)';
    const result = await runProcess(NODE, ['-e', script], { timeoutMs: 300, killGraceMs: 200 });
    expect(result.isTimedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
  });

  it('rejects with ProcessStartError when the command does not exist', async () => {
    let error: unknown = null;
    try {
      await runProcess('/nonexistent/cua-command', [], { timeoutMs: 1_000 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProcessStartError);
    expect((error as ProcessStartError).errno).toBe('ENOENT');
    expect((error as ProcessStartError).message).toContain('/nonexistent/cua-command');
  });
});
