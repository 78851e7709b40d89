// Reading a JSON request body with a size limit, shared by `serve` (src/server) and the hub
// (src/hub/http): stops reading as soon as the limit is passed.
import type http from 'node:http';

/** What reading a request body gave. */
export type BodyOutcome =
  { kind: 'ok'; text: string } | { kind: 'too-large' } | { kind: 'aborted' };

// Reads a request body up to `limitBytes`; stops reading as soon as the limit is passed.
export function readBody(req: http.IncomingMessage, limitBytes: number): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        req.off('data', onData);
        req.pause();
        resolve({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve({ kind: 'ok', text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => resolve({ kind: 'aborted' }));
    req.on('close', () => resolve({ kind: 'aborted' }));
  });
}
