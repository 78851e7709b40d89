import path from 'node:path';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { localPlugin } from '../../tools/eslint/layering.js';

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
  ])('refuses %s: %s', (file, code, message) => {
    const messages = lint(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(message);
  });
});
