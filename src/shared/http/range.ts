// HTTP Range header parsing for one byte range (RFC 9110 §14): what to send of a file.

/** What to answer to a request for a file of a given size. */
export type RangeDecision =
  /** Send the whole file with 200 (no Range, a malformed one, or several ranges). */
  | { kind: 'full' }
  /** Send bytes start..end (inclusive) with 206. */
  | { kind: 'partial'; start: number; end: number }
  /** Answer 416 with `Content-Range: bytes *\/size`. */
  | { kind: 'unsatisfiable' };

// Decides how to answer a Range header for a file of `sizeBytes`. Malformed headers and
// multi-range requests are ignored (a 200 with the whole file is always a valid answer).
export function decideRange(header: string | undefined, sizeBytes: number): RangeDecision {
  if (header === undefined) {
    return { kind: 'full' };
  }
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) {
    return { kind: 'full' };
  }
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') {
    return { kind: 'full' };
  }
  if (first === '') {
    // suffix range: the last N bytes
    const suffix = Number(last);
    if (suffix === 0 || sizeBytes === 0) {
      return { kind: 'unsatisfiable' };
    }
    return { kind: 'partial', start: Math.max(0, sizeBytes - suffix), end: sizeBytes - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) {
    // an invalid range-spec: the header is ignored
    return { kind: 'full' };
  }
  if (start >= sizeBytes) {
    return { kind: 'unsatisfiable' };
  }
  const end = last === '' ? sizeBytes - 1 : Math.min(Number(last), sizeBytes - 1);
  return { kind: 'partial', start, end };
}
