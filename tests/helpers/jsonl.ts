// Reading JSON-lines files written by exports, for assertions.
import fs from 'node:fs';

/** The objects of a JSON-lines file, one per non-empty line. */
export function readJsonl(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
