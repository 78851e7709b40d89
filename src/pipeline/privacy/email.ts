// E-mail address detector: RFC 5322 "dot-atom" local parts at a domain with a letter TLD.
import type { PiiMatch } from '../../shared/domain/privacy';
import { matchAt } from './text';

// local part: atoms of the common unquoted characters joined by single dots; domain: labels of
// letters, digits and inner hyphens, ending in an alphabetic TLD of 2–24 letters
const EMAIL =
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-]|\.[A-Za-z0-9])/g;

// "icon@2x.png", "logo@3x.webp": retina asset names share the shape; these are file types, not TLDs
const FILE_EXTENSIONS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'bmp',
  'ico',
  'tif',
  'tiff',
  'avif',
  'heic',
  'js',
  'mjs',
  'cjs',
  'ts',
  'tsx',
  'jsx',
  'css',
  'scss',
  'less',
  'html',
  'htm',
  'json',
  'yaml',
  'yml',
  'xml',
  'txt',
  'md',
  'pdf',
  'zip',
  'gz',
  'tgz',
  'mp4',
  'mov',
  'webm',
  'mp3',
  'wav',
  'py',
  'rb',
  'go',
  'rs',
  'java',
  'kt',
  'swift',
  'sh',
  'lock',
  'log',
  'csv',
  'tsv',
]);

/** E-mail addresses in `text`. */
export function findEmails(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  if (!text.includes('@')) {
    return out;
  }
  for (const m of text.matchAll(EMAIL)) {
    let start = m.index;
    let value = m[0];
    // leading characters allowed in local parts but rarely typed there: quotes, slashes, braces
    const trimmed = value.replace(/^[!#$%&'*/=?^`{|}~-]+/, '');
    start += value.length - trimmed.length;
    value = trimmed;
    const at = value.indexOf('@');
    if (at <= 0 || value[at - 1] === '.' || value.startsWith('.')) {
      continue;
    }
    const tld = value.slice(value.lastIndexOf('.') + 1).toLowerCase();
    // scp-style remotes ("git@github.com:org/repo.git") name an SSH login, not a mailbox
    const after = start + value.length;
    if (FILE_EXTENSIONS.has(tld) || (text[after] === ':' && /[\w~/]/.test(text[after + 1] ?? ''))) {
      continue;
    }
    out.push(matchAt(text, 'email', start, start + value.length));
  }
  return out;
}
