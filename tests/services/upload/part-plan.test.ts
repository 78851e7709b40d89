import { describe, expect, it } from 'vitest';
import {
  MIN_PART_SIZE_BYTES,
  choosePartSize,
  isSinglePut,
  multipartEtag,
  normalizeEtag,
  planParts,
} from '../../../src/services/upload/part-plan';
import { isAppError } from '../../../src/shared/errors';

const MIB = 1024 * 1024;

describe('part plan', () => {
  it.each([
    { size: 0, part: 5 * MIB, parts: [[1, 0, 0]] },
    { size: 5 * MIB, part: 5 * MIB, parts: [[1, 0, 5 * MIB]] },
    {
      size: 5 * MIB + 1,
      part: 5 * MIB,
      parts: [
        [1, 0, 5 * MIB],
        [2, 5 * MIB, 1],
      ],
    },
    {
      size: 11 * MIB,
      part: 5 * MIB,
      parts: [
        [1, 0, 5 * MIB],
        [2, 5 * MIB, 5 * MIB],
        [3, 10 * MIB, MIB],
      ],
    },
  ])('splits $size bytes into parts of $part', ({ size, part, parts }) => {
    expect(planParts(size, part).map((p) => [p.partNumber, p.offsetBytes, p.sizeBytes])).toEqual(
      parts,
    );
    expect(isSinglePut(size, part)).toBe(parts.length === 1);
  });

  it('keeps the part size within S3 limits', () => {
    expect(choosePartSize(100 * MIB, 8 * MIB)).toBe(8 * MIB);
    // 200 GiB at 8 MiB would be 25,600 parts: grown to 21 MiB (≤ 10,000 parts)
    const big = 200 * 1024 * MIB;
    const size = choosePartSize(big, 8 * MIB);
    expect(size).toBe(21 * MIB);
    expect(planParts(big, size).length).toBeLessThanOrEqual(10_000);
    let caught: unknown;
    try {
      choosePartSize(MIB, MIN_PART_SIZE_BYTES - 1);
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'UPLOAD_CONFIG')).toBe(true);
  });

  it('computes the multipart ETag Swift reported for 5 MiB of 0x07 + 1 MiB of 0x09', () => {
    const md5s = ['242c0407347ba6c65f5b476da66df47c', '867d1a8172a7b6e6659e9b1e7047246a'];
    expect(multipartEtag(md5s)).toBe('dbec4b64f8b327ef84d2e61bfc8821d7-2');
    expect(normalizeEtag('"DBEC4B64F8B327EF84D2E61BFC8821D7-2"')).toBe(
      'dbec4b64f8b327ef84d2e61bfc8821d7-2',
    );
    expect(normalizeEtag(undefined)).toBe('');
  });
});
