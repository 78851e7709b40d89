// docs/architecture.md against the code (issue 31 item 6): §2's folder table names every folder
// of src/ with exactly the folders the layering rule (tools/eslint/layering.js) lets it import,
// and which may use Node built-ins; its module table names each adapter-only module with the
// places the rule allows it; §1's layout names every folder of src/ and each of their
// sub-folders.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTER_ONLY, COMPOSITION_ROOTS, LAYERS, NO_NODE } from '../../tools/eslint/layering.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const doc = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');

/** The text of a `## N.` section. */
function section(n: number): string {
  const start = doc.indexOf(`\n## ${n}. `);
  const end = doc.indexOf('\n## ', start + 1);
  expect(start, `section ${n}`).toBeGreaterThan(-1);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** The rows of the markdown table whose header starts with `| <first> `, as cells. */
function tableRows(text: string, first: string): string[][] {
  const lines = text.split('\n');
  const header = lines.findIndex((l) => l.startsWith(`| ${first} `));
  expect(header, `table ${first}`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) {
      break;
    }
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** The `code` spans of a cell, leaving out what stands in parentheses (remarks). */
function codeSpans(cell: string): string[] {
  const withoutLinks = cell.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  const withoutRemarks = withoutLinks.replace(/\([^()]*\)/g, '');
  return [...withoutRemarks.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

const srcFolders = fs
  .readdirSync(path.join(root, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

describe('docs/architecture.md §2 matches the layering rule', () => {
  const rows = tableRows(section(2), 'Folder');
  const byFolder = new Map(rows.map((r) => [codeSpans(r[0] ?? '')[0], r]));

  it('has one row per folder of src/, the folders the rule knows', () => {
    expect([...byFolder.keys()].sort()).toEqual(srcFolders);
    expect(Object.keys(LAYERS).sort()).toEqual(srcFolders);
    expect(rows).toHaveLength(srcFolders.length);
  });

  it('names in each row exactly the folders the rule lets that folder import', () => {
    const known = new Set(Object.keys(LAYERS));
    for (const folder of srcFolders) {
      const [, mayImport = ''] = byFolder.get(folder) ?? [];
      const named = codeSpans(mayImport).filter((name) => known.has(name));
      const rootsExtra = Object.entries(COMPOSITION_ROOTS)
        .filter(([file]) => file.startsWith(`src/${folder}/`))
        .flatMap(([, extra]) => extra);
      expect(new Set(named), folder).toEqual(new Set([...(LAYERS[folder] ?? []), ...rootsExtra]));
    }
  });

  it('says no to Node built-ins exactly for the folders the rule keeps them out of', () => {
    for (const folder of srcFolders) {
      const [, , node] = byFolder.get(folder) ?? [];
      expect(node === 'no', folder).toBe(NO_NODE.includes(folder));
    }
  });

  it('lists every adapter-only module with the places the rule allows it', () => {
    const modules = tableRows(section(2), 'Module');
    const byModule = new Map(modules.map((r) => [codeSpans(r[0] ?? '')[0], codeSpans(r[1] ?? '')]));
    const table = modules.map((r) => r.join(' | ')).join('\n');
    for (const [module, owners] of Object.entries(ADAPTER_ONLY)) {
      if (owners.length === 0) {
        // allowed nowhere: named in a remark with "nowhere"
        expect(table, module).toMatch(new RegExp('`' + module + '`: nowhere'));
      } else {
        expect(byModule.get(module), module).toEqual(owners);
      }
    }
    expect([...byModule.keys()].filter((m) => m === undefined || !(m in ADAPTER_ONLY))).toEqual([]);
  });
});

describe('docs/architecture.md §1 names every folder of src/', () => {
  const block = section(1).split('```')[1] ?? '';
  // each top-level entry `  <name>/` up to the next one
  const entries = new Map<string, string>();
  let current: string | null = null;
  for (const line of block.split('\n')) {
    const top = /^ {2}([a-z]+)\/ /.exec(line);
    if (top?.[1]) {
      current = top[1];
      entries.set(current, '');
    } else if (/^\S/.test(line)) {
      current = null;
    }
    if (current) {
      entries.set(current, entries.get(current) + line + '\n');
    }
  }

  it('has an entry for each folder of src/', () => {
    expect([...entries.keys()].sort()).toEqual(srcFolders);
  });

  it("names each folder's sub-folders in its entry", () => {
    const missing: string[] = [];
    for (const folder of srcFolders) {
      const subs = fs
        .readdirSync(path.join(root, 'src', folder), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
      for (const sub of subs) {
        if (!new RegExp(`(?<![\\w-])${sub}/`).test(entries.get(folder) ?? '')) {
          missing.push(`src/${folder}/${sub}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
