// The two counts of key presses the X RECORD hook compares (press-tally.ts): the RECORD stream's
// and the XInput2 raw events', up to the time both have reached.
import { describe, expect, it } from 'vitest';
import { PressTally } from '../../../src/recorder/input/x11/press-tally';

describe('PressTally', () => {
  it('finds nothing lost when both streams bring the same presses', () => {
    const tally = new PressTally();
    for (const t of [100, 110, 120, 130]) {
      tally.addRaw(t);
      tally.addRecorded(t);
    }
    expect(tally.settle()).toBe(0);
    expect(tally.settle(true)).toBe(0);
    expect(tally.lost).toBe(0);
    expect(tally.rawPresses).toBe(4);
  });

  it('counts the presses RECORD lacks, once, when both streams have passed them', () => {
    const tally = new PressTally();
    [100, 110, 120, 130, 140, 150].forEach((t) => tally.addRaw(t));
    // RECORD lost 110–130 and has not yet brought 150
    [100, 140].forEach((t) => tally.addRecorded(t));
    expect(tally.settle()).toBe(3); // those before 140, where RECORD has got to
    expect(tally.settle()).toBe(0);
    tally.addRecorded(150);
    tally.addRecorded(160);
    tally.addRaw(160);
    expect(tally.settle(true)).toBe(0);
    expect(tally.lost).toBe(3);
  });

  it('does not compare past the slower stream: raw presses RECORD has not delivered yet are no loss', () => {
    const tally = new PressTally();
    tally.addRaw(100);
    tally.addRecorded(100);
    [110, 120, 130].forEach((t) => tally.addRaw(t));
    expect(tally.settle()).toBe(0);
    [110, 120, 130].forEach((t) => tally.addRecorded(t));
    expect(tally.settle(true)).toBe(0);
  });

  it('ignores recorded presses from before the raw selection, and repeats RECORD alone has', () => {
    const tally = new PressTally();
    [50, 60, 70].forEach((t) => tally.addRecorded(t)); // before the first raw press
    tally.addRaw(100);
    tally.addRecorded(100);
    tally.addRecorded(100); // an autorepeat: RECORD only, no loss
    expect(tally.settle(true)).toBe(0);
    tally.addRaw(300); // never came through RECORD
    expect(tally.settle(true)).toBe(1);
  });

  it('compares a press RECORD brought before its raw copy came (the first ones)', () => {
    const tally = new PressTally();
    tally.addRecorded(100); // shift, then T: RECORD's copies first
    tally.addRecorded(100);
    tally.addRaw(100);
    tally.addRaw(100);
    tally.addRecorded(120);
    tally.addRaw(120);
    expect(tally.settle()).toBe(0);
    expect(tally.settle(true)).toBe(0);
  });

  it('handles the 32-bit wrap of server times', () => {
    const tally = new PressTally();
    const near = 0xffffff00;
    tally.addRaw(near);
    tally.addRecorded(near);
    tally.addRaw(10); // after the wrap
    tally.addRaw(20);
    tally.addRecorded(20);
    expect(tally.settle()).toBe(1);
  });
});
