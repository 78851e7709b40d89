// The built renderer (Vite output) as static files, for both hosts that serve it (`serve`,
// src/server, and the team hub, src/hub/http): safe path resolution, index.html for client
// routes, a "build it first" page when there is nothing to serve, and small HTML pages.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { contentTypeOf } from '../../shared/http/media-route';
import { realFileInside } from '../file-inside';

/**
 * The built renderer of this install: out/renderer beside the bundle (out/node/*.js, built by
 * `prepare` after `npm ci`), or the repository's out/renderer when running from sources (a
 * `.ts` module through tsx or vitest: the nearest folder above it with a package.json). Not the
 * working directory: the hosts work from any folder.
 */
export function defaultRendererDir(moduleUrl: string = import.meta.url): string {
  const moduleDir = path.dirname(fileURLToPath(moduleUrl));
  if (!moduleUrl.endsWith('.ts')) {
    return path.resolve(moduleDir, '..', 'renderer');
  }
  let dir = moduleDir;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) {
    dir = path.dirname(dir);
  }
  return path.join(dir, 'out', 'renderer');
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

// Escapes text for an HTML page.
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Sends a small HTML page (the not-built and bad-link pages).
export function sendHtml(res: http.ServerResponse, status: number, title: string, body: string) {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">` +
    `<h1>${title}</h1>${body}</body></html>`;
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
  });
  res.end(res.req.method === 'HEAD' ? undefined : html);
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

async function sendIndex(
  res: http.ServerResponse,
  file: string,
  transform: (html: string) => string,
): Promise<void> {
  const html = transform(await fs.promises.readFile(file, 'utf8'));
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-cache',
  });
  res.end(res.req.method === 'HEAD' ? undefined : html);
}

/** Options of {@link serveStatic}. */
export type ServeStaticOptions = {
  /** Rewrites index.html before it is sent (the hub marks it as its own); default: as built. */
  transformIndex?: (html: string) => string;
};

// Answers one GET/HEAD for the renderer under `root`.
export async function serveStatic(
  root: string,
  rawPath: string,
  res: http.ServerResponse,
  options: ServeStaticOptions = {},
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
  const index = path.join(path.resolve(root), 'index.html');
  if (target.kind === 'file') {
    if (options.transformIndex && target.file === fs.realpathSync(index)) {
      await sendIndex(res, target.file, options.transformIndex);
      return;
    }
    // Vite puts content-hashed files under assets/: cache those for good
    const isHashed = rawPath.startsWith('/assets/');
    await sendFile(res, target.file, isHashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    return;
  }
  if (!fs.existsSync(index)) {
    sendNotBuilt(res, root);
    return;
  }
  if (options.transformIndex) {
    await sendIndex(res, index, options.transformIndex);
    return;
  }
  await sendFile(res, index, 'no-cache');
}
