// `npm run lint:electron [-- --allow <file>] [dir…]`: Electronegativity over the built main and
// preload (default out/main out/preload; `npx electron-vite build` makes them), offline. Fails on
// a finding above INFORMATIONAL that tools/packaging/electronegativity-allow.json does not
// explain, on an allow entry that matches nothing, and on a file it cannot parse
// (tools/packaging/electronegativity.ts, docs/packaging.md §8).
import { access } from 'node:fs/promises';
import path from 'node:path';
import { type Finding, lintElectron, readAllowList } from './electronegativity';

const DEFAULT_DIRS = ['out/main', 'out/preload'];
const DEFAULT_ALLOW = 'tools/packaging/electronegativity-allow.json';

const root = process.cwd();
const args = process.argv.slice(2);
const allowAt = args.indexOf('--allow');
const allowFile = allowAt >= 0 ? args[allowAt + 1] : DEFAULT_ALLOW;
const dirs = args.filter((_, i) => allowAt < 0 || (i !== allowAt && i !== allowAt + 1));
const scanned = dirs.length > 0 ? dirs : DEFAULT_DIRS;

const out = (line: string): boolean => process.stdout.write(`${line}\n`);
const err = (line: string): boolean => process.stderr.write(`lint:electron: ${line}\n`);
const where = (f: Finding): string => (f.file === 'N/A' ? 'whole app' : `${f.file}:${f.line}`);

async function main(): Promise<number> {
  if (!allowFile) {
    err('--allow needs a file');
    return 2;
  }
  for (const dir of scanned) {
    try {
      await access(path.resolve(root, dir));
    } catch {
      err(`${dir} does not exist. Fix: build the app first (npx electron-vite build).`);
      return 1;
    }
  }
  const allow = await readAllowList(path.resolve(root, allowFile));
  const result = await lintElectron({ root, dirs: scanned, allow });
  out(`lint:electron: ${result.checks} checks over ${scanned.join(', ')}`);
  for (const f of result.findings) {
    const entry = allow.find((a) => a.id === f.id && (a.file === undefined || a.file === f.file));
    const verdict =
      f.severity === 'INFORMATIONAL'
        ? 'info'
        : entry
          ? `allowed: ${entry.reason}`
          : 'NOT EXPLAINED';
    out(`  ${f.severity} ${f.id} (${f.confidence}) ${where(f)}: ${f.description} [${verdict}]`);
  }
  for (const e of result.parseErrors) {
    err(`could not parse ${e.file}: ${e.message}`);
  }
  for (const entry of result.unused) {
    err(
      `allow entry ${entry.id}${entry.file ? ` (${entry.file})` : ''} matches no finding: remove it`,
    );
  }
  const failed = result.unexplained.length + result.unused.length + result.parseErrors.length > 0;
  if (result.unexplained.length > 0) {
    err(
      `${result.unexplained.length} finding(s) above INFORMATIONAL not explained: fix them, or add ` +
        `{id, file?, reason} to ${allowFile}`,
    );
  }
  if (!failed) {
    out('lint:electron: no unexplained findings');
  }
  return failed ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  err(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
