#!/usr/bin/env node
// CLI entry: runs the TypeScript sources through tsx so `npx cua-annotator` works after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
