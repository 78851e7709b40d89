import { describe, expect, it } from 'vitest';
import { decideRange, type RangeDecision } from '../../../src/shared/http/range';

const SIZE = 1000;

const CASES: [string | undefined, RangeDecision][] = [
  [undefined, { kind: 'full' }],
  ['bytes=0-99', { kind: 'partial', start: 0, end: 99 }],
  ['bytes=100-', { kind: 'partial', start: 100, end: 999 }],
  ['bytes=990-5000', { kind: 'partial', start: 990, end: 999 }],
  ['bytes=-100', { kind: 'partial', start: 900, end: 999 }],
  ['bytes=-5000', { kind: 'partial', start: 0, end: 999 }],
  ['bytes=999-999', { kind: 'partial', start: 999, end: 999 }],
  ['bytes=1000-', { kind: 'unsatisfiable' }],
  ['bytes=1000-1001', { kind: 'unsatisfiable' }],
  ['bytes=-0', { kind: 'unsatisfiable' }],
  // ignored: malformed, reversed, several ranges, other units
  ['bytes=5-1', { kind: 'full' }],
  ['bytes=0-1,5-9', { kind: 'full' }],
  ['items=0-1', { kind: 'full' }],
  ['bytes=-', { kind: 'full' }],
  ['bytes=abc', { kind: 'full' }],
];

describe('decideRange', () => {
  it.each(CASES)('%s on 1000 bytes', (header, expected) => {
    expect(decideRange(header, SIZE)).toEqual(expected);
  });

  it('every range of an empty file is unsatisfiable', () => {
    expect(decideRange('bytes=0-0', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange('bytes=-1', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange(undefined, 0)).toEqual({ kind: 'full' });
  });
});
