// Raw HTTP requests for the server tests: the path is sent exactly as given (no URL
// normalisation, so `..` and `%2e%2e` reach the server), with any Host header.
import http from 'node:http';

/** One request. */
export type RawRequest = {
  method?: string;
  /** Raw request target, sent byte for byte. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Host header; default `127.0.0.1:<port>`. */
  host?: string;
};

/** The answer, body fully read. */
export type RawResponse = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** Sends one request to 127.0.0.1:`port` and reads the whole answer. */
export function rawRequest(port: number, r: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: r.method ?? 'GET',
      path: r.path,
      headers: { Host: r.host ?? `127.0.0.1:${port}`, ...r.headers },
      agent: false,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    // the server may close the connection before the whole body is written (413): the response
    // already arrived, so write errors are expected then
    req.on('error', (e) => reject(e));
    if (r.body !== undefined) {
      req.write(r.body, () => undefined);
    }
    req.end();
  });
}

// tests read arbitrary JSON answers field by field
/* eslint-disable @typescript-eslint/no-explicit-any */

/** POSTs a JSON body to /api/<method> with the bearer token. */
export async function callApi(
  port: number,
  token: string,
  method: string,
  payload: unknown,
): Promise<{ status: number; json: any }> {
  const res = await rawRequest(port, {
    method: 'POST',
    path: `/api/${method}`,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(payload),
  });
  return { status: res.status, json: JSON.parse(res.body.toString('utf8')) };
}

/** Parses a JSON body. */
export function json(res: RawResponse): any {
  return JSON.parse(res.body.toString('utf8'));
}
/* eslint-enable @typescript-eslint/no-explicit-any */
