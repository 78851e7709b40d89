// The files an import kept (issue 26, item 2): every top-level file of an imported AgentNet
// folder is kept byte for byte under the recording's `raw/` and leaves with its upload as
// `files/raw/<name>` (services/upload/bundle.ts). Their text is part of what the PII scan reads
// (docs/privacy.md §5): each JSON line's (or JSON file's) strings and keys, or each line of any
// other text file, a piece of its own with the file name as its place. A file that is not text
// (not UTF-8, or with NUL bytes) cannot be scanned and so never leaves; the recording's video is
// not text and leaves as `video/` with its pixel redactions. With the setting
// `privacy.uploadRawFiles` off none of them leaves, and none is scanned.
import fs from 'node:fs';
import path from 'node:path';
import type { RecordingDetail } from '../../shared/domain';
import { RAW_SUBDIR } from '../import/agentnet-import';
import type { Library } from '../library/library';
import type { ScanText } from './scan-texts';

/** One file an import kept under the recording's `raw/` (not its video). */
export type RawFile = {
  /** File name inside `raw/` (the name it had in the imported folder). */
  name: string;
  /** Path inside the recording's folder: `raw/<name>`. */
  rel: string;
  /** Absolute path. */
  absPath: string;
};

/** The files of an imported recording's `raw/` other than its videos ([] for a recording). */
export function rawFilesOf(
  lib: Library,
  rec: Pick<RecordingDetail, 'dir' | 'videos' | 'sourceMetadata'>,
): RawFile[] {
  const listed = rec.sourceMetadata?.files;
  if (!Array.isArray(listed)) {
    return [];
  }
  const recDir = lib.resolve(rec.dir);
  const videos = new Set(rec.videos.map((v) => path.resolve(lib.resolve(v.path))));
  const out: RawFile[] = [];
  for (const entry of listed as { name?: unknown }[]) {
    const name = entry?.name;
    // names as the importer listed them: top-level files, never a path
    if (typeof name !== 'string' || name === '' || name.includes('/') || name.includes('\\')) {
      continue;
    }
    const absPath = path.resolve(recDir, RAW_SUBDIR, name);
    if (!videos.has(absPath)) {
      out.push({ name, rel: `${RAW_SUBDIR}/${name}`, absPath });
    }
  }
  return out;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a kept file; null when it is not text (not UTF-8, or NUL bytes) or is gone. */
export function readRawText(file: RawFile): string | null {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file.absPath);
  } catch {
    return null;
  }
  if (bytes.includes(0)) {
    return null;
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/** Every string and object key of a JSON value, each once, into `into`. */
function jsonTexts(value: unknown, into: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      into.add(v);
    } else if (Array.isArray(v)) {
      stack.push(...(v as unknown[]));
    } else if (v !== null && typeof v === 'object') {
      for (const [key, field] of Object.entries(v as Record<string, unknown>)) {
        into.add(key);
        stack.push(field);
      }
    }
  }
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[') && !t.startsWith('"')) {
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * The distinct pieces of text of a file's content: a whole-file JSON document's strings and keys;
 * else, line by line, a JSON line's strings and keys or the line itself.
 */
export function rawTextPieces(content: string): string[] {
  const out = new Set<string>();
  const whole = parsed(content);
  if (whole.ok) {
    jsonTexts(whole.value, out);
  } else {
    for (const line of content.split(/\r?\n/)) {
      if (line.trim() === '') {
        continue;
      }
      const row = parsed(line);
      if (row.ok) {
        jsonTexts(row.value, out);
      } else {
        out.add(line);
      }
    }
  }
  out.delete('');
  return [...out];
}

/** The pieces the scan reads from an imported recording's kept files (text files only). */
export function rawFileScanTexts(files: readonly RawFile[]): ScanText[] {
  const out: ScanText[] = [];
  for (const file of files) {
    const content = readRawText(file);
    if (content === null) {
      continue; // not text: never leaves (bundle.ts)
    }
    for (const text of rawTextPieces(content)) {
      out.push({ source: 'raw-file', file: file.name, text, tMs: null, stepIndex: null });
    }
  }
  return out;
}
