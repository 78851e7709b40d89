// The macOS helper's logic modules never load koffi: only ffi/ does, and only main.ts imports
// ffi/. Checked twice: statically (the import graph from each logic module) and for real (a child
// process imports them and looks for koffi's native library among its mapped files; importing
// ffi/ and declaring the types is the control that does map it).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DARWIN = path.join(ROOT, 'src/helpers/darwin');
const LOGIC = readdirSync(DARWIN)
  .filter((f) => f.endsWith('.ts') && f !== 'main.ts')
  .map((f) => path.join(DARWIN, f));

// Every module reachable from `file` by static or dynamic imports (relative ones resolved).
function importGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) {
    return seen;
  }
  seen.add(file);
  if (!file.endsWith('.ts')) {
    return seen;
  }
  const source = readFileSync(file, 'utf8');
  for (const m of source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'([^']+)'/g)) {
    const spec = m[1] as string;
    if (spec.startsWith('.')) {
      importGraph(`${path.resolve(path.dirname(file), spec)}.ts`, seen);
    } else {
      seen.add(spec);
    }
  }
  return seen;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'darwin-no-koffi-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Imports `modules` in a fresh Node (through tsx), runs `then`, prints the koffi mappings.
function mappedKoffi(modules: string[], then = ''): string[] {
  const probe = path.join(tmp, `probe-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(
    probe,
    [
      ...modules.map((m, i) => `import * as m${i} from ${JSON.stringify(m)};`),
      `void [${modules.map((_, i) => `m${i}`).join(', ')}];`,
      then,
      `import { readFileSync } from 'node:fs';`,
      `const maps = readFileSync('/proc/self/maps', 'utf8').split('\\n');`,
      `process.stdout.write(JSON.stringify(maps.filter((l) => /koffi/i.test(l))));`,
    ].join('\n'),
  );
  const out = execFileSync(process.execPath, [path.join(ROOT, 'bin/run-ts.mjs'), probe], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out) as string[];
}

describe('darwin helper logic without koffi', () => {
  it('imports neither koffi nor ffi/ from any logic module', () => {
    expect(LOGIC.map((f) => path.basename(f)).sort()).toEqual(
      expect.arrayContaining(['ax-backend.ts', 'ax-reader.ts', 'displays.ts', 'helper.ts']),
    );
    for (const file of LOGIC) {
      const graph = [...importGraph(file)];
      expect(
        graph.filter((m) => m === 'koffi' || m.includes('/ffi/')),
        file,
      ).toEqual([]);
    }
    // the control: main.ts reaches koffi through ffi/
    expect([...importGraph(path.join(DARWIN, 'main.ts'))]).toContain('koffi');
  });

  it('does not map koffi’s native library when the logic modules are loaded', () => {
    expect(mappedKoffi(LOGIC)).toEqual([]);
    const control = mappedKoffi([path.join(DARWIN, 'ffi/bindings.ts')], `m0.defineTypes();`);
    expect(control.length).toBeGreaterThan(0);
  });
});
