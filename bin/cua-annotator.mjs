#!/usr/bin/env node
// CLI entry: runs the built CLI, out/node/cli.js (`prepare` builds it during `npm ci`; rebuild with
// `npm run build:node`). CUA_ANNOTATOR_FROM_SOURCE=1 runs the TypeScript sources through tsx
// instead: for development and the test suite, which must exercise the code as it is now, not the
// last build. tsx is a development dependency, so an install never depends on it.
import { existsSync } from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILT_CLI = fileURLToPath(new URL('../out/node/cli.js', import.meta.url));

// better-sqlite3 13 and the rest need Node 22.12 or newer; `npx` and `npm run` in the project use
// its own Node 24 (the `node` dev dependency), a bare `node bin/…` the machine's
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `error: cua-annotator needs Node 22.12 or newer; this is Node ${process.versions.node} (${process.execPath})\n` +
      'fix: run it as `npx cua-annotator …` in the project folder (npm ci installs Node 24 there), or install Node 24\n',
  );
  process.exit(2);
}

// Node's module compile cache (issue 31 item 4): the bundle's modules are compiled once and read
// back from the user's cache folder (the one of src/infra/cache-dir.ts) by later runs.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; a folder that cannot be written only costs the cache.
function userCacheDir() {
  const home = os.homedir();
  if (process.platform === 'darwin') {
    return path.join(home, 'Library', 'Caches', 'cua-annotator');
  }
  if (process.platform === 'win32') {
    const local = process.env.LOCALAPPDATA || path.join(home, 'AppData', 'Local');
    return path.join(local, 'cua-annotator', 'Cache');
  }
  return path.join(process.env.XDG_CACHE_HOME || path.join(home, '.cache'), 'cua-annotator');
}
module.enableCompileCache?.(path.join(userCacheDir(), 'node-compile-cache'));

if (process.env.CUA_ANNOTATOR_FROM_SOURCE === '1') {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      'error: CUA_ANNOTATOR_FROM_SOURCE=1 needs tsx (a development dependency), which is not installed\n' +
        'fix: install the development dependencies (npm ci), or unset CUA_ANNOTATOR_FROM_SOURCE to run the build\n',
    );
    process.exit(2);
  }
  register();
  const { main } = await import('../src/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
} else if (existsSync(BUILT_CLI)) {
  // the bundle runs main() itself
  await import('../out/node/cli.js');
} else {
  process.stderr.write(
    `error: the CLI is not built (${BUILT_CLI} is missing)\n` +
      'fix: run `npm run build:node` in the cua-annotator folder (npm ci does it in its prepare step)\n',
  );
  process.exit(2);
}
