// The fast ms → s conversion must equal the decimal-exact msToSeconds for every input.
import { describe, expect, it } from 'vitest';
import { msToSecondsFast } from '../../../src/pipeline/reduce';
import { readAgentNetFolder } from '../../../src/pipeline/io/agentnet-read';
import { msToSeconds, secondsToMs } from '../../../src/shared/clock';
import { FIXTURE_DIR } from '../../helpers/paths';

function mismatches(values: readonly number[]): number[] {
  return values.filter((ms) => !Object.is(msToSecondsFast(ms), msToSeconds(ms)));
}

describe('msToSecondsFast', () => {
  it('equals msToSeconds on every fixture time stamp', async () => {
    const { events } = await readAgentNetFolder(FIXTURE_DIR);
    expect(mismatches(events.map((event) => event.tMs))).toEqual([]);
  });

  it('equals msToSeconds on random values with 0–9 decimals, both signs and edge cases', () => {
    let state = 12345;
    const next = (): number => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    const values: number[] = [0, -0, 1e-7, 0.1, 0.3, 1e15, 123456789012.3456, -5.5];
    for (let i = 0; i < 200_000; i += 1) {
      const decimals = i % 10;
      const magnitude = 10 ** ((i % 13) - 2);
      const value = Number((next() * magnitude).toFixed(decimals)) * (i % 7 === 0 ? -1 : 1);
      values.push(value, secondsToMs(value), value * 1.0000001);
    }
    expect(mismatches(values)).toEqual([]);
  });
});
