#!/usr/bin/env node
// Runs a TypeScript file (benchmarks, child processes) through tsx: `node bin/run-ts.mjs file.ts`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

register();
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bin/run-ts.mjs <file.ts> [args...]\n');
  process.exit(1);
}
process.argv = [process.argv[0], path.resolve(file), ...rest];
await import(pathToFileURL(path.resolve(file)).href);
