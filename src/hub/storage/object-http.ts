// Serves the folder store's signed object URLs over HTTP (docs/team-mode.md §9): the embedded
// hub mounts this under OBJECT_URL_PATH so the app uploads and downloads bundle files with the
// URLs the hub handed out, as it would with S3's presigned URLs. Only what a URL's signature
// allows passes: its method, its key, before its expiry, and for an upload exactly its size.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { AppError, isAppError, type ErrorCode } from '../../shared/errors';
import type { FolderObjectStore } from './folder-store';
import { verifyObjectRequest } from './signed-url';

const STATUS: Partial<Record<ErrorCode, number>> = {
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PATH_INVALID: 400,
  INTEGRITY_FAILED: 400,
  STORAGE_FULL: 507,
  STORAGE_UNREACHABLE: 503,
};

// How long a refused upload's remaining body is read before the connection is cut, ms.
const DRAIN_LIMIT_MS = 30_000;

// Reads (and drops) what is left of a refused upload's body, bounded by the size its URL grants
// and by time. A client still sending when the answer comes with a closed connection sees
// EPIPE or a reset, never the answer: a disk that fills up part way through a video would
// reach the annotator as a network failure instead of STORAGE_FULL.
async function drainBody(req: IncomingMessage, limitBytes: number): Promise<void> {
  if (req.readableEnded || req.destroyed) {
    return;
  }
  await new Promise<void>((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limitBytes) {
        done();
      }
    };
    const timer = setTimeout(done, DRAIN_LIMIT_MS);
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

function fail(res: ServerResponse, e: unknown): void {
  const code: ErrorCode = isAppError(e) ? e.code : 'INTERNAL';
  const message = isAppError(e) ? e.message : 'internal error';
  const body = JSON.stringify({
    ok: false,
    error: { code, message, ...(isAppError(e) && e.fix ? { fix: e.fix } : {}) },
  });
  if (!res.headersSent) {
    res.writeHead(STATUS[code] ?? 500, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      // a refused upload's body is not read: close the connection rather than drain it
      connection: 'close',
    });
  }
  res.end(body);
}

/** Answers one request for a signed object URL (GET: the object; PUT: stores the body). */
export async function handleObjectRequest(
  store: FolderObjectStore,
  req: IncomingMessage,
  res: ServerResponse,
  nowMs: number = Date.now(),
): Promise<void> {
  try {
    const grant = verifyObjectRequest(
      store.secret,
      { method: req.method ?? '', pathAndQuery: req.url ?? '' },
      nowMs,
    );
    if (grant.method === 'GET') {
      const info = await store.stat(grant.key);
      const body = await store.get(grant.key);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        ...(info ? { 'content-length': info.sizeBytes } : {}),
        'cache-control': 'no-store',
      });
      await pipeline(Readable.from(body), res);
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) !== grant.sizeBytes) {
      throw new AppError(
        'INTEGRITY_FAILED',
        `${grant.key}: Content-Length ${declared}, the URL allows exactly ${grant.sizeBytes}`,
        { key: grant.key },
        'Send the file the manifest describes.',
      );
    }
    let info;
    try {
      // read without destroying the request when the store gives up on it (a full disk)
      info = await store.put(grant.key, req.iterator({ destroyOnReturn: false }), {
        sizeBytes: grant.sizeBytes ?? 0,
      });
    } catch (e) {
      // answer once the client has sent its body, so that it reads the answer
      await drainBody(req, grant.sizeBytes ?? 0);
      throw e;
    }
    const body = JSON.stringify({ ok: true, value: info });
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  } catch (e) {
    fail(res, e);
  }
}
