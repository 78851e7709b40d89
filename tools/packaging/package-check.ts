// `npm run package:check`: validates electron-builder.yml without Electron or network
// (tools/packaging/builder-config.ts, docs/packaging.md §7). Exit code 1 on any problem.
import { checkBuilderConfig } from './builder-config';

const root = process.cwd();
const { problems, notes } = await checkBuilderConfig({ root });
for (const note of notes) {
  process.stdout.write(`package:check: note: ${note}\n`);
}
for (const problem of problems) {
  process.stderr.write(`package:check: ${problem}\n`);
}
if (problems.length > 0) {
  process.stderr.write(`package:check: electron-builder.yml has ${problems.length} problem(s)\n`);
  process.exitCode = 1;
} else {
  process.stdout.write('package:check: electron-builder.yml is valid (schema, files, settings)\n');
}
