// The app's two custom protocols (docs/architecture.md §9: never file:// with webSecurity off):
// `cua-app://app/…` serves the built renderer, `cua-media://media/<id>/<kind>/<name>` serves a
// recording's video and keyframes. Both must be registered as privileged before the app is
// ready, so that they behave as standard, secure origins (fetch, relative URLs, video seeking).
import type { CustomScheme } from 'electron';

/** Scheme of the renderer's pages. */
export const APP_SCHEME = 'cua-app';
/** Host of the renderer's pages. */
export const APP_HOST = 'app';
/** The renderer's origin (what a trusted sender frame's URL starts with). */
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** Scheme of recording media. */
export const MEDIA_SCHEME = 'cua-media';
/** Host of recording media URLs. */
export const MEDIA_HOST = 'media';
/** The media origin. */
export const MEDIA_ORIGIN = `${MEDIA_SCHEME}://${MEDIA_HOST}`;

/** What protocol.registerSchemesAsPrivileged gets (before app 'ready'). */
export const PRIVILEGED_SCHEMES: CustomScheme[] = [
  {
    scheme: APP_SCHEME,
    privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
  },
  {
    scheme: MEDIA_SCHEME,
    // stream: video elements read it in ranges while seeking
    privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true },
  },
];

/**
 * The origin (`scheme://host[:port]`) of `url`, or null when it has none. Custom schemes are
 * "non-special" to the WHATWG URL parser in Node, whose `URL.origin` is then the string
 * "null"; this builds it from the parts instead.
 */
export function originOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.host === '') {
    return null;
  }
  return `${parsed.protocol}//${parsed.host}`.toLowerCase();
}
