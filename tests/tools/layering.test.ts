import path from 'node:path';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ADAPTER_ONLY, localPlugin } from '../../tools/eslint/layering.js';

const root = '/repo';
const linter = new Linter({ configType: 'flat', cwd: root });

function lint(file: string, code: string): string[] {
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        plugins: { local: localPlugin },
        rules: { 'local/layering': ['error', { root }] },
      },
    ],
    { filename: path.join(root, file) },
  );
  return messages.map((m) => m.message);
}

describe('layering rule', () => {
  it.each([
    ['src/store/db.ts', `import Database from 'better-sqlite3';`],
    ['src/services/recordings.ts', `import { listSteps } from '../store';`],
    ['src/services/recordings.ts', `import { x } from '../pipeline/code';`],
    ['src/cli/main.ts', `import { x } from '../recorder/session';`],
    ['src/pipeline/io/read.ts', `import fs from 'node:fs';`],
    ['src/pipeline/code/parse-code.ts', `import { AppError } from '../../shared/errors';`],
    ['src/main/index.ts', `import { openDatabase } from '../store';`],
    ['src/renderer/App.ts', `import { RAW_EVENT_KINDS } from '../shared/domain';`],
    ['src/shared/contract/methods.ts', `import * as v from 'valibot';`],
    // the infrastructure layer: processes live there, and the Node layers may use it
    ['src/infra/spawn-child.ts', `import { spawn } from 'node:child_process';`],
    ['src/infra/run-command.ts', `import { execa } from 'execa';`],
    ['src/infra/run-command.ts', `import { AppError } from '../shared/errors';`],
    [
      'src/recorder/screen/ffmpeg-process.ts',
      `import { spawnChild } from '../../infra/spawn-child';`,
    ],
    ['src/pipeline/media/cut-video.ts', `import { runCommand } from '../../infra/run-command';`],
    ['src/pipeline/io/a.ts', `import { runCommand } from '../../infra/run-command';`],
    ['src/services/system/doctor.ts', `import { runCommand } from '../../infra/run-command';`],
    ['src/cli/a.ts', `import { resolveFfmpeg } from '../infra/ffmpeg/binary';`],
    ['src/server/a.ts', `import { isProcessAlive } from '../infra/process-alive';`],
    ['src/main/window.ts', `import { spawnChild } from '../infra/spawn-child';`],
  ])('allows %s: %s', (file, code) => {
    expect(lint(file, code)).toEqual([]);
  });

  it.each([
    [
      'src/shared/x.ts',
      `import fs from 'node:fs';`,
      /node builtins are not allowed in src\/shared/,
    ],
    [
      'src/shared/contract/a.ts',
      `import { z } from 'zod';`,
      /src\/shared may import no package but valibot/,
    ],
    [
      'src/store/queries/a.ts',
      `import Database from 'better-sqlite3';`,
      /only be imported in src\/store\/db.ts/,
    ],
    [
      'src/store/queries/a.ts',
      `import { x } from '../../services/recordings';`,
      /'src\/store' must not import from 'src\/services'/,
    ],
    [
      'src/pipeline/code/a.ts',
      `import fs from 'node:fs';`,
      /outside pipeline\/io and pipeline\/media/,
    ],
    [
      'src/pipeline/a.ts',
      `import { openDatabase } from '../store';`,
      /'src\/pipeline' must not import from 'src\/store'/,
    ],
    [
      'src/renderer/a.ts',
      `import { x } from '../services/recordings';`,
      /'src\/renderer' must not import/,
    ],
    [
      'src/main/window.ts',
      `import { openDatabase } from '../store';`,
      /'src\/main' must not import from 'src\/store'/,
    ],
    ['src/cli/a.ts', `import { app } from 'electron';`, /'electron' may only be imported/],
    [
      'src/services/a.ts',
      `import { uIOhook } from 'uiohook-napi';`,
      /'uiohook-napi' may only be imported/,
    ],
    ['src/axtree/model.ts', `import dbus from 'dbus-next';`, /'dbus-next' may only be imported/],
    ['src/server/a.ts', `export * from '../renderer/App';`, /'src\/server' must not import/],
    // node:child_process only in src/infra (re-exports too); execa likewise
    [
      'src/recorder/screen/ffmpeg-process.ts',
      `import { spawn } from 'node:child_process';`,
      /'node:child_process' may only be imported in src\/infra\//,
    ],
    [
      'src/pipeline/media/probe.ts',
      `export { spawn } from 'node:child_process';`,
      /'node:child_process' may only be imported in src\/infra\//,
    ],
    [
      'src/services/system/doctor.ts',
      `import { execFile } from 'node:child_process';`,
      /'node:child_process' may only be imported/,
    ],
    ['src/cli/a.ts', `import { spawn } from 'child_process';`, /'child_process' may only be/],
    ['src/services/a.ts', `import { execa } from 'execa';`, /'execa' may only be imported/],
    // infra sits below everything but shared; axtree and pure pipeline folders may not use it
    [
      'src/infra/a.ts',
      `import { x } from '../services/recordings';`,
      /'src\/infra' must not import from 'src\/services'/,
    ],
    [
      'src/infra/a.ts',
      `import { x } from '../recorder/session';`,
      /'src\/infra' must not import from 'src\/recorder'/,
    ],
    [
      'src/axtree/platform/a.ts',
      `import { spawnChild } from '../../infra/spawn-child';`,
      /'src\/axtree' must not import from 'src\/infra'/,
    ],
    [
      'src/pipeline/code/a.ts',
      `import { runCommand } from '../../infra/run-command';`,
      /'src\/pipeline' must not import from 'src\/infra'/,
    ],
    [
      'src/renderer/a.ts',
      `import { x } from '../infra/lines';`,
      /'src\/renderer' must not import from 'src\/infra'/,
    ],
  ])('refuses %s: %s', (file, code, message) => {
    const messages = lint(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(message);
  });

  it('allows node:child_process in src/infra only', () => {
    expect(ADAPTER_ONLY['node:child_process']).toEqual(['src/infra/']);
  });
});

describe('where node:child_process is imported', () => {
  it('is imported only under src/infra', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const srcRoot = path.resolve(import.meta.dirname, '../../src');
    const entries = await readdir(srcRoot, { recursive: true, withFileTypes: true });
    const importers: string[] = [];
    for (const entry of entries) {
      if (!entry.isFile() || !/\.(ts|tsx|mts)$/.test(entry.name)) {
        continue;
      }
      const full = path.join(entry.parentPath, entry.name);
      const text = await readFile(full, 'utf8');
      if (
        /from ['"](node:)?child_process['"]|require\(['"](node:)?child_process['"]\)/.test(text)
      ) {
        importers.push(path.relative(path.dirname(srcRoot), full).split(path.sep).join('/'));
      }
    }
    const outside = importers.filter((file) => !file.startsWith('src/infra/'));
    expect(outside).toEqual([]);
    expect(importers.some((file) => file.startsWith('src/infra/'))).toBe(true);
  });
});
