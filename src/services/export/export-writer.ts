// Where the format writers put their files: an export's staging folder, or an upload bundle's
// folder under its own names (bundle.ts). Paths are relative to the export's root and use `/`.
import fs from 'node:fs/promises';
import path from 'node:path';

/** Receives the files of one export. */
export type ExportWriter = {
  /** Writes a generated file at `rel`. */
  file(rel: string, content: string | Buffer): Promise<void>;
  /** The absolute path a file `rel` is to be copied or cut to (its folder exists); records it. */
  target(rel: string): Promise<string>;
};

/** A writer into `dir`, listing every written `rel` in `written`. */
export function folderWriter(dir: string, written: string[]): ExportWriter {
  const target = async (rel: string): Promise<string> => {
    const full = path.join(dir, rel);
    await fs.mkdir(path.dirname(full), { recursive: true });
    written.push(rel);
    return full;
  };
  return {
    target,
    file: async (rel, content) => {
      const full = path.join(dir, rel);
      await fs.mkdir(path.dirname(full), { recursive: true });
      await fs.writeFile(full, content);
      written.push(rel);
    },
  };
}
