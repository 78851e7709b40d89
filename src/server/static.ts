// The built renderer (Vite output) as static files: safe path resolution, index.html for client
// routes, and a "build it first" page when there is nothing to serve.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { realFileInside } from '../infra/file-inside';
import { contentTypeOf } from '../shared/http/media-route';
import { sendHtml } from './respond';

/**
 * The built renderer of this install: out/renderer beside the bundle (out/node/*.js, built by
 * `prepare` after `npm ci`), or the repository's out/renderer when running from sources
 * (src/server/static.ts through tsx or vitest). Not the working directory: `serve` works from
 * any folder.
 */
export function defaultRendererDir(moduleUrl: string = import.meta.url): string {
  const moduleDir = path.dirname(fileURLToPath(moduleUrl));
  return moduleUrl.endsWith('.ts')
    ? path.resolve(moduleDir, '..', '..', 'out', 'renderer')
    : path.resolve(moduleDir, '..', 'renderer');
}

/** Where a static request path leads. */
export type StaticTarget =
  | { kind: 'file'; file: string }
  /** A client route (no file, no extension): answer with index.html. */
  | { kind: 'index' }
  | { kind: 'missing' }
  | { kind: 'bad' };

// Maps a raw URL path onto a file under `root` without ever leaving it: decodes once, refuses
// NUL bytes, dot-segments and dotfiles, and re-checks the real path after symlinks.
export function resolveStatic(root: string, rawPath: string): StaticTarget {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return { kind: 'bad' };
  }
  if (decoded.includes('\0') || decoded.includes('\\')) {
    return { kind: 'bad' };
  }
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.')) {
    return { kind: 'bad' };
  }
  if (segments.some((s) => s.startsWith('.'))) {
    return { kind: 'missing' };
  }
  const last = segments[segments.length - 1] ?? '';
  const isRoute = !last.includes('.');
  if (segments.length === 0) {
    return { kind: 'index' };
  }
  const absRoot = path.resolve(root);
  const candidate = path.join(absRoot, ...segments);
  const real = realFileInside(absRoot, candidate);
  if (real !== null) {
    return { kind: 'file', file: real };
  }
  // not there: a client route or a missing asset
  return isRoute ? { kind: 'index' } : { kind: 'missing' };
}

function sendNotBuilt(res: http.ServerResponse, root: string): void {
  sendHtml(
    res,
    503,
    'The review UI is not built yet',
    `<p>No <code>index.html</code> in <code>${escapeHtml(root)}</code>.</p>` +
      '<p>Build the renderer (<code>npm ci</code> does it in its <code>prepare</code> step), ' +
      'then reload this page:</p>' +
      '<pre>npm run build:renderer</pre>' +
      '<p>The API under <code>/api/</code> works meanwhile.</p>',
  );
}

// Escapes text for an HTML page.
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function sendFile(res: http.ServerResponse, file: string, cacheControl: string) {
  const stat = await fs.promises.stat(file);
  res.writeHead(200, {
    'Content-Type': contentTypeOf(file),
    'Content-Length': stat.size,
    'Cache-Control': cacheControl,
  });
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  try {
    await pipeline(fs.createReadStream(file), res);
  } catch {
    res.destroy();
  }
}

// Answers one GET/HEAD for the renderer under `root`.
export async function serveStatic(
  root: string,
  rawPath: string,
  res: http.ServerResponse,
): Promise<void> {
  const target = resolveStatic(root, rawPath);
  if (target.kind === 'bad') {
    sendHtml(res, 400, 'Bad path', '<p>That path is not allowed.</p>');
    return;
  }
  if (target.kind === 'missing') {
    sendHtml(res, 404, 'Not found', '<p>No such file.</p>');
    return;
  }
  if (target.kind === 'file') {
    // Vite puts content-hashed files under assets/: cache those for good
    const isHashed = rawPath.startsWith('/assets/');
    await sendFile(res, target.file, isHashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    return;
  }
  const index = path.join(path.resolve(root), 'index.html');
  if (!fs.existsSync(index)) {
    sendNotBuilt(res, root);
    return;
  }
  await sendFile(res, index, 'no-cache');
}
