// Searches bytes that leave the machine (export folders, uploaded objects) for texts that must not
// be in them (issue 14: redacted and excluded strings). Archives are opened (gzip, tar, zip), JSON
// and JSON lines decoded (escapes, `$base64` blobs), and each text is looked for in several forms:
// UTF-8, UTF-16LE and UTF-16BE, JSON `\uXXXX` escapes, `\/`, and its digits-only / compact form
// (a card number without its spaces), case-insensitively in the decoded texts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

/** One piece of content: a file, an object, or a member of an archive inside one. */
export type Blob = { name: string; bytes: Buffer };

/** Every file under `dir` (absolute paths). */
export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** The files under `dir` as blobs named by their path relative to it. */
export function blobsUnder(dir: string): Blob[] {
  return filesUnder(dir).map((f) => ({
    name: path.relative(dir, f).split(path.sep).join('/'),
    bytes: fs.readFileSync(f),
  }));
}

const isGzip = (b: Buffer) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;
const isZip = (b: Buffer) => b.length > 4 && b.readUInt32LE(0) === 0x04034b50;
const isTar = (b: Buffer) => b.length >= 512 && b.toString('latin1', 257, 262) === 'ustar';

/** The members of a tar archive (regular files). */
function tarMembers(b: Buffer): Blob[] {
  const out: Blob[] = [];
  let o = 0;
  while (o + 512 <= b.length && b[o] !== 0) {
    const name = b.toString('utf8', o, o + 100).replace(/\0.*$/s, '');
    const size = parseInt(
      b
        .toString('latin1', o + 124, o + 136)
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    const type = String.fromCharCode(b[o + 156]!);
    if (type === '0' || type === '\0') {
      out.push({ name, bytes: b.subarray(o + 512, o + 512 + size) });
    }
    o += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

/** The members of a zip archive (unzip into a temp folder). */
function zipMembers(b: Buffer): Blob[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-leak-zip-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.zip'), b);
    execFileSync('unzip', ['-qq', '-o', path.join(dir, 'a.zip'), '-d', path.join(dir, 'x')]);
    return blobsUnder(path.join(dir, 'x'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A blob and, recursively, the contents of the archives it is (gzip, tar, zip). */
export function unpack(blob: Blob): Blob[] {
  const { name, bytes } = blob;
  if (isGzip(bytes)) {
    return [blob, ...unpack({ name: `${name}!gunzip`, bytes: zlib.gunzipSync(bytes) })];
  }
  if (isZip(bytes)) {
    return [blob, ...zipMembers(bytes).flatMap((m) => unpack({ ...m, name: `${name}!${m.name}` }))];
  }
  if (isTar(bytes)) {
    return [blob, ...tarMembers(bytes).flatMap((m) => unpack({ ...m, name: `${name}!${m.name}` }))];
  }
  return [blob];
}

/** Every text a blob holds: its bytes as UTF-8, Latin-1 and UTF-16LE, and the strings (and keys)
 * of its JSON / JSON lines, escapes decoded, JSON text inside strings parsed again, `$base64`
 * blobs opened. */
export function textsOf(blob: Blob): string[] {
  const { name, bytes } = blob;
  const texts = [bytes.toString('utf8'), bytes.toString('latin1'), bytes.toString('utf16le')];
  const strings = (x: unknown): void => {
    if (typeof x === 'string') {
      texts.push(x);
      if (x.startsWith('{') || x.startsWith('[')) {
        try {
          strings(JSON.parse(x));
        } catch {
          // not JSON
        }
      }
    } else if (Array.isArray(x)) {
      x.forEach(strings);
    } else if (x && typeof x === 'object') {
      for (const [k, v] of Object.entries(x)) {
        texts.push(k);
        if (k === '$base64' && typeof v === 'string') {
          const decoded = Buffer.from(v, 'base64');
          texts.push(...unpack({ name, bytes: decoded }).map((b) => b.bytes.toString('latin1')));
        }
        strings(v);
      }
    }
  };
  if (/\.jsonl$/.test(name)) {
    for (const line of bytes.toString('utf8').split('\n')) {
      if (line.trim()) {
        strings(JSON.parse(line));
      }
    }
  } else if (/\.json$/.test(name)) {
    strings(JSON.parse(bytes.toString('utf8')));
  }
  return texts;
}

/** Separators a typed number or key carries that its compact form leaves out. */
const SEPARATORS = /[\s\-.()/]/g;

/** The byte forms a text is looked for in. */
export function byteForms(text: string): { form: string; bytes: Buffer }[] {
  const escaped = [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const variants = [text];
  const compact = text.replace(SEPARATORS, '');
  if (compact !== text && compact.length >= 6) {
    variants.push(compact);
  }
  const out: { form: string; bytes: Buffer }[] = [];
  for (const v of variants) {
    const label = v === text ? '' : ' (compact)';
    const be = Buffer.from(v, 'utf16le');
    be.swap16();
    out.push(
      { form: `utf8${label}`, bytes: Buffer.from(v, 'utf8') },
      { form: `utf16le${label}`, bytes: Buffer.from(v, 'utf16le') },
      { form: `utf16be${label}`, bytes: be },
      { form: `json${label}`, bytes: Buffer.from(JSON.stringify(v).slice(1, -1), 'utf8') },
      { form: `json \\/${label}`, bytes: Buffer.from(v.replace(/\//g, '\\/'), 'utf8') },
    );
  }
  out.push({ form: 'json \\u', bytes: Buffer.from(escaped.join(''), 'utf8') });
  out.push({
    form: 'json \\u (upper)',
    bytes: Buffer.from(escaped.join('').toUpperCase().replace(/\\U/g, '\\u'), 'utf8'),
  });
  return out;
}

/**
 * The texts of `secrets` found in `blobs` (archives opened), as `name: secret [form]`. A text is
 * found when one of its {@link byteForms} is in the bytes, or it (or its compact form) is in one
 * of the decoded {@link textsOf}, ignoring case.
 */
export function findLeaks(blobs: readonly Blob[], secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const blob of blobs.flatMap(unpack)) {
    const texts = textsOf(blob).map((t) => t.toLowerCase());
    for (const s of secrets) {
      const hit = byteForms(s).find((f) => blob.bytes.includes(f.bytes));
      if (hit) {
        found.push(`${blob.name}: ${s} [${hit.form}]`);
        continue;
      }
      const compact = s.replace(SEPARATORS, '');
      const needles = [s, ...(compact !== s && compact.length >= 6 ? [compact] : [])].map((n) =>
        n.toLowerCase(),
      );
      if (texts.some((t) => needles.some((n) => t.includes(n)))) {
        found.push(`${blob.name}: ${s} [decoded text]`);
      }
    }
  }
  return found;
}

/** The texts of `secrets` found anywhere under `dir` (see {@link findLeaks}). */
export function leaks(dir: string, secrets: readonly string[]): string[] {
  return findLeaks(blobsUnder(dir), secrets);
}

/** How many times `text` occurs in the UTF-8 bytes of `blob`. */
export function countIn(blob: Blob, text: string): number {
  const s = blob.bytes.toString('utf8');
  let n = 0;
  for (let i = s.indexOf(text); i >= 0; i = s.indexOf(text, i + text.length)) {
    n += 1;
  }
  return n;
}
