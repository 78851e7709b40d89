// `record --exclude-app / --exclude-title`: repeatable options in the help, and a bad rule refused
// with EXCLUSION_RULE_INVALID naming the option and the fix before anything starts (no library
// folder is created, no X display is needed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';

describe('record exclusion options', () => {
  it('are in the help', async () => {
    const r = await runCli(['record', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--exclude-app NAME');
    expect(r.stdout).toContain('--exclude-title RE');
  });

  it('refuse a bad title pattern before anything starts', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-exclude-cli-'));
    const lib = path.join(parent, 'lib');
    try {
      const r = await runCli(
        [
          'record',
          '--task',
          'x',
          '--exclude-app',
          'keepassxc',
          '--exclude-title',
          'Bank',
          '--exclude-title',
          'Bank (online',
          '--library',
          lib,
          '--json',
        ],
        { DISPLAY: ':none' },
      );
      expect(r.code).not.toBe(0);
      const text = r.stdout + r.stderr;
      expect(text).toContain('EXCLUSION_RULE_INVALID');
      expect(text).toContain('--exclude-title "Bank (online"');
      expect(text).toMatch(/escape literal characters/);
      expect(fs.existsSync(lib)).toBe(false);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('refuse an empty application name', async () => {
    const r = await runCli(['record', '--task', 'x', '--exclude-app', '', '--json']);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('--exclude-app keepassxc');
  });
});
