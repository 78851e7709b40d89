#!/usr/bin/env node
// CLI entry: runs the built CLI, out/node/cli.js (`prepare` builds it during `npm ci`; rebuild with
// `npm run build:node`). CUA_ANNOTATOR_FROM_SOURCE=1 runs the TypeScript sources through tsx
// instead: for development and the test suite, which must exercise the code as it is now, not the
// last build. tsx is a development dependency, so an install never depends on it.
import { existsSync } from 'node:fs';
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
