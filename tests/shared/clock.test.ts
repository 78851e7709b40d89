import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { msToSeconds, secondsToMs } from '../../src/shared/clock';
import { FIXTURE_DIR } from '../helpers/paths';

describe('clock conversions', () => {
  it.each([
    [30673.6036902, 30673603.6902],
    [30679.8280302, 30679828.0302],
    [0, 0],
    [1.5, 1500],
    [-2.25, -2250],
    [0.0001, 0.1],
    [123, 123000],
  ])('%d s ↔ %d ms exactly', (s, ms) => {
    expect(secondsToMs(s)).toBe(ms);
    expect(msToSeconds(ms)).toBe(s);
  });

  it('round-trips every time stamp of the fixture bit for bit', () => {
    const lines = fs
      .readFileSync(`${FIXTURE_DIR}/events.jsonl`, 'utf8')
      .split(/\r?\n/)
      .filter(Boolean);
    let naive = 0;
    for (const line of lines) {
      const t = (JSON.parse(line) as { time_stamp: number }).time_stamp;
      expect(msToSeconds(secondsToMs(t))).toBe(t);
      if ((t * 1000) / 1000 !== t) {
        naive += 1;
      }
    }
    // the plain multiply/divide would have changed some of them: the test is not vacuous
    expect(naive).toBeGreaterThan(0);
  });
});
