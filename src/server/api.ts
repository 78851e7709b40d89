// `POST /api/<method>`: JSON body in, the dispatcher's Result envelope out (docs/architecture.md §3).
import type http from 'node:http';
import type { Services } from '../services/create-services';
import type { Result, ResultError } from '../shared/result';
import { sendError, sendJson } from './respond';
import { statusForResult } from './status';
import { readBody } from '../infra/http/read-body';

/** Default request body limit, bytes (1 MiB). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

// Answers 413 and closes the connection instead of reading the rest of the body.
function sendTooLarge(res: http.ServerResponse, limitBytes: number): void {
  sendError(
    res,
    413,
    'PAYLOAD_TOO_LARGE',
    `The request body is larger than ${limitBytes} bytes`,
    { limitBytes },
    { Connection: 'close' },
  );
  res.on('finish', () => res.req.socket.destroySoon());
}

// Answers one authorised /api/<method> request (the method name is already decoded).
export async function serveApiCall(
  services: Pick<Services, 'dispatch'>,
  method: string,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  limitBytes: number,
  /** Checks a parsed payload before dispatch: an error refuses the call (its code sets the
   * HTTP status). */
  refuse: (payload: unknown) => ResultError | null = () => null,
): Promise<void> {
  if (req.method !== 'POST') {
    // GET never mutates: every contract call is a POST
    sendError(res, 405, 'METHOD_NOT_ALLOWED', `Use POST for /api/${method}`, undefined, {
      Allow: 'POST',
    });
    return;
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    sendError(res, 415, 'INVALID_PAYLOAD', 'Send the payload as Content-Type: application/json', {
      contentType: req.headers['content-type'] ?? null,
    });
    return;
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    sendTooLarge(res, limitBytes);
    return;
  }
  const body = await readBody(req, limitBytes);
  if (body.kind === 'too-large') {
    sendTooLarge(res, limitBytes);
    return;
  }
  if (body.kind === 'aborted') {
    res.destroy();
    return;
  }
  if (body.text.trim() === '') {
    sendError(res, 400, 'INVALID_PAYLOAD', 'The request body is empty; send a JSON object ({})');
    return;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body.text);
  } catch (e) {
    sendError(res, 400, 'INVALID_PAYLOAD', 'The request body is not valid JSON', {
      reason: (e as Error).message,
    });
    return;
  }
  const refused = refuse(payload);
  const result: Result<unknown> = refused
    ? { ok: false, error: refused }
    : await services.dispatch(method, payload);
  sendJson(res, statusForResult(result), result);
}
