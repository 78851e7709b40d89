// The real entry (src/helpers/darwin/main.ts) as a child process. On Linux the frameworks are
// missing, so it behaves as a Mac without the accessibility permission would: a hello without
// the AX capabilities, PERMISSION_DENIED for AX requests, `unknown` for what it cannot ask; and
// it exits 0 when its stdin closes (docs/helper-protocol.md §2).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('darwin helper entry', () => {
  it('speaks the protocol and exits 0 on stdin EOF', async () => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'bin/run-ts.mjs'), 'src/helpers/darwin/main.ts'],
      { cwd: ROOT, env: { ...process.env, CUA_ANNOTATOR_HOST_APP: 'Terminal' } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const lines = (): Record<string, unknown>[] =>
      stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const waitFor = async (id: number | 'hello'): Promise<Record<string, unknown>> => {
      for (let i = 0; i < 300; i++) {
        const line = lines().find((l) => (id === 'hello' ? l.type === 'hello' : l.id === id));
        if (line) {
          return line;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no ${id} line; stderr: ${stderr}`);
    };
    const hello = await waitFor('hello');
    expect(hello).toMatchObject({
      protocol: 2,
      capabilities: ['activeWindow', 'displays', 'permissions'],
      helper: { name: 'ax-helper', os: 'darwin', pid: child.pid },
    });
    child.stdin.write('{"id":1,"method":"permissions","params":{}}\n');
    child.stdin.write('{"id":2,"method":"elementAt","params":{"x":10,"y":-20}}\n');
    expect(await waitFor(1)).toEqual({
      id: 1,
      ok: true,
      result: { accessibility: 'unknown', screenRecording: 'unknown', inputMonitoring: 'unknown' },
    });
    const denied = await waitFor(2);
    expect(denied).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
    expect(JSON.stringify(denied)).toContain('Accessibility: allow Terminal');
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toContain('ax-helper: eof, exiting');
  });
});
