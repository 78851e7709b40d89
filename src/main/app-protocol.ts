// The `cua-app://app/` protocol: the built renderer (out/renderer) with the app's CSP on every
// response. Only files inside the renderer folder are served (segments checked, real paths
// compared), GET/HEAD only; `/` is index.html.
import path from 'node:path';
import { errorResponse, fileResponse } from './file-response';
import { realFileInside } from '../infra/file-inside';
import { APP_HOST, APP_SCHEME } from './schemes';
import { APP_CONTENT_SECURITY_POLICY } from './window-security';

/** The file under `rootDir` a `cua-app://app/…` URL names, or null for anything else. */
export function appFileOf(rootDir: string, url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) {
    return null;
  }
  const segments: string[] = [];
  for (const raw of parsed.pathname.split('/').slice(1)) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) {
      return null;
    }
    segments.push(decoded);
  }
  const rel = segments.filter((s) => s !== '');
  const file = path.join(rootDir, ...(rel.length === 0 ? ['index.html'] : rel));
  return realFileInside(rootDir, file) === null ? null : file;
}

// The protocol.handle handler of `cua-app://` serving `rootDir`.
export function createAppHandler(rootDir: string): (request: Request) => Promise<Response> {
  const headers = {
    'Content-Security-Policy': APP_CONTENT_SECURITY_POLICY,
    'Cache-Control': 'no-cache',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Referrer-Policy': 'no-referrer',
  };
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return errorResponse(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed`);
    }
    const file = appFileOf(rootDir, request.url);
    if (file === null) {
      return errorResponse(404, 'NOT_FOUND', 'No such page');
    }
    try {
      return await fileResponse(request, file, { headers });
    } catch {
      return errorResponse(404, 'NOT_FOUND', 'No such page');
    }
  };
}
