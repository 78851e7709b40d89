// services/review and services/export never import each other, and services/keyframes (the
// keyframe code both use) imports neither (issue 31 item 6; docs/architecture.md §2). Checked
// twice: the layering rule's SERVICES_APART table on snippets, and a scan of the real sources
// (static, type, dynamic imports and re-exports) that fails when such an import comes back.
import fs from 'node:fs';
import path from 'node:path';
import { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { localPlugin, SERVICES_APART } from '../../tools/eslint/layering.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const lintRoot = '/repo';
const linter = new Linter({ configType: 'flat', cwd: lintRoot });

function lint(file: string, code: string): string[] {
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        plugins: { local: localPlugin },
        rules: { 'local/layering': ['error', { root: lintRoot }] },
      },
    ],
    { filename: path.join(lintRoot, file) },
  );
  return messages.map((m) => m.message);
}

// Every module specifier of `source`: import/export … from, side-effect imports, import().
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const m of source.matchAll(pattern)) {
      found.push(m[1]!);
    }
  }
  return found;
}

// The services/ sub-folder a repository-relative path lies in (null: none).
function servicesFolderOf(rel: string): string | null {
  return /^src\/services\/([^/]+)\//.exec(rel)?.[1] ?? null;
}

// `file`'s imports of services/ folders it must stay apart from, as `file -> specifier`.
function forbiddenImports(file: string, source: string): string[] {
  const from = servicesFolderOf(file);
  const apart: readonly string[] = from ? (SERVICES_APART[from] ?? []) : [];
  return specifiersOf(source)
    .filter((spec) => spec.startsWith('.'))
    .filter((spec) => {
      const target = path.posix.join(path.posix.dirname(file), spec);
      const to = servicesFolderOf(`${target}/`);
      return to !== null && apart.includes(to);
    })
    .map((spec) => `${file} -> ${spec}`);
}

function tsFilesUnder(dir: string): string[] {
  return fs
    .readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${dir}/${name.split(path.sep).join('/')}`);
}

describe('services/review, services/export and services/keyframes stay apart', () => {
  it.each([
    ['src/services/review/a.ts', `import { runExport } from '../export/export-service';`],
    ['src/services/review/a.ts', `export { x } from '../export';`],
    ['src/services/export/a.ts', `import { guardAcceptedEdit } from '../review/review-lock';`],
    ['src/services/export/a.ts', `const m = import('../review/step-context');`],
    ['src/services/keyframes/a.ts', `import { pathExists } from '../export/export-service';`],
    ['src/services/keyframes/a.ts', `import { x } from '../review/review-lock';`],
  ])('the layering rule refuses %s: %s', (file, code) => {
    expect(lint(file, code)).toEqual([
      expect.stringMatching(/must not import from 'src\/services\//),
    ]);
  });

  it.each([
    ['src/services/export/a.ts', `import { x } from '../keyframes/keyframe-extraction';`],
    ['src/services/review/a.ts', `import { x } from '../keyframes/keyframes';`],
    ['src/services/keyframes/a.ts', `import { x } from '../privacy/redact-media';`],
    ['src/services/review-service.ts', `import { x } from './review/review-lock';`],
    ['src/services/upload/bundle.ts', `import { x } from '../export/formats';`],
  ])('the layering rule allows %s: %s', (file, code) => {
    expect(lint(file, code)).toEqual([]);
  });

  it('the source scan finds each kind of import it is meant to refuse', () => {
    const file = 'src/services/review/a.ts';
    expect(
      forbiddenImports(
        file,
        [
          `import { a } from '../export/export-load';`,
          `import type { Loaded } from '../export/export-load';`,
          `export * from '../export';`,
          `import '../export/side-effect';`,
          `const m = await import('../export/export-service');`,
          `import {\n  b,\n  c,\n} from '../export/formats';`,
          `import { d } from '../keyframes/keyframes';`,
        ].join('\n'),
      ),
    ).toEqual([
      `${file} -> ../export/export-load`,
      `${file} -> ../export/export-load`,
      `${file} -> ../export`,
      `${file} -> ../export/formats`,
      `${file} -> ../export/side-effect`,
      `${file} -> ../export/export-service`,
    ]);
  });

  it('no source file of the three folders imports a folder it must stay apart from', () => {
    const folders = Object.keys(SERVICES_APART).map((name) => `src/services/${name}`);
    const files = folders.flatMap(tsFilesUnder);
    // the scan reads real files: export uses keyframes/, as it should
    const exportSource = fs.readFileSync(
      path.join(repoRoot, 'src/services/export/export-keyframes.ts'),
      'utf8',
    );
    expect(specifiersOf(exportSource)).toContain('../keyframes/keyframes');
    expect(files.length).toBeGreaterThan(10);
    const found = files.flatMap((file) =>
      forbiddenImports(file, fs.readFileSync(path.join(repoRoot, file), 'utf8')),
    );
    expect(found).toEqual([]);
  });
});
