// Golden keyframe table of the fixture episode win10-display-settings (docs/keyframes.md §5),
// verified against the OpenCUA reference implementation. Shared by the pure plan/resolve test and
// the end-to-end extraction test.
import type { KeyframeStepInput } from '../../../src/pipeline/keyframes';

/** `metadata.video_start_timestamp` of the fixture. */
export const GOLDEN_VST = 30673.6036902;
/** Frame rate, frame count and size of the fixture video. */
export const GOLDEN_FPS = 30;
export const GOLDEN_FRAME_COUNT = 3678;
export const GOLDEN_WIDTH = 1276;
export const GOLDEN_HEIGHT = 718;

/** Step inputs exactly as in reduced_events_complete.jsonl (action, pre_move.start_time) and
 * reduced_events_vis.jsonl (start_time, end_time). */
export const GOLDEN_STEP_INPUTS: KeyframeStepInput[] = [
  {
    action: 'click',
    preMoveStartS: 30679.8280302,
    pressStartS: 30680.6270419,
    endS: 30681.0463558,
  },
  {
    action: 'click',
    preMoveStartS: 30681.9154633,
    pressStartS: 30682.6703082,
    endS: 30683.0689136,
  },
  { action: 'click', preMoveStartS: 30683.6461926, pressStartS: 30683.982273, endS: 30684.4285981 },
  { action: 'drag', preMoveStartS: 30687.6935524, pressStartS: 30689.356889, endS: 30693.6860564 },
  {
    action: 'click',
    preMoveStartS: 30693.6873276,
    pressStartS: 30697.3103478,
    endS: 30697.7861192,
  },
  {
    action: 'scroll',
    preMoveStartS: 30698.5896232,
    pressStartS: 30701.1270545,
    endS: 30702.2952018,
  },
  {
    action: 'click',
    preMoveStartS: 30703.0542977,
    pressStartS: 30703.7103494,
    endS: 30704.1432497,
  },
  {
    action: 'click',
    preMoveStartS: 30704.5735187,
    pressStartS: 30707.0543964,
    endS: 30707.5488574,
  },
  {
    action: 'click',
    preMoveStartS: 30709.5257922,
    pressStartS: 30710.8139558,
    endS: 30711.1236989,
  },
  { action: 'click', preMoveStartS: 30711.123965, pressStartS: 30715.2862364, endS: 30715.7012267 },
  {
    action: 'click',
    preMoveStartS: 30717.3587314,
    pressStartS: 30720.2427732,
    endS: 30720.7212756,
  },
  {
    action: 'click',
    preMoveStartS: 30776.2360662,
    pressStartS: 30781.9981241,
    endS: 30782.4223661,
  },
  {
    action: 'click',
    preMoveStartS: 30782.4228358,
    pressStartS: 30784.3502923,
    endS: 30784.7570196,
  },
  { action: 'click', preMoveStartS: 30785.749446, pressStartS: 30788.9821505, endS: 30789.3809029 },
];

/** One row of spec §5 (search rows: lo, hi, reference frame, loop length, differing probe). */
export type GoldenRow =
  | {
      step: number;
      rule: 'A' | 'terminate';
      lo: number;
      hi: number;
      refFrame: number;
      probeCount: number;
      /** The differing probe (loop index, time, frame), or null when none differs. */
      differing: { k: number; t: number; frame: number } | null;
      chosenT: number;
      frame: number;
    }
  | { step: number; rule: 'B'; chosenT: number; frame: number };

// Probe counts of the terminate loop are not in the table: it runs from lo to the video end.
export const GOLDEN_ROWS: GoldenRow[] = [
  {
    step: 0,
    rule: 'A',
    lo: 6.224339999997028,
    hi: 6.523351699997875,
    refFrame: 196,
    probeCount: 3,
    differing: null,
    chosenT: 6.224339999997028,
    frame: 187,
  },
  {
    step: 1,
    rule: 'A',
    lo: 8.31177309999839,
    hi: 8.566617999997106,
    refFrame: 257,
    probeCount: 3,
    differing: { k: 1, t: 8.466617999997107, frame: 254 },
    chosenT: 8.566617999997106,
    frame: 257,
  },
  {
    step: 2,
    rule: 'A',
    lo: 10.042502399999648,
    hi: 10.042502399999648,
    refFrame: 301,
    probeCount: 1,
    differing: null,
    chosenT: 10.042502399999648,
    frame: 301,
  },
  {
    step: 3,
    rule: 'A',
    lo: 14.089862199998606,
    hi: 15.253198799997335,
    refFrame: 458,
    probeCount: 12,
    differing: { k: 4, t: 14.853198799997337, frame: 446 },
    chosenT: 14.953198799997336,
    frame: 449,
  },
  {
    step: 4,
    rule: 'A',
    lo: 20.083637399999134,
    hi: 23.206657599999744,
    refFrame: 696,
    probeCount: 32,
    differing: { k: 3, t: 22.90665759999974, frame: 687 },
    chosenT: 23.00665759999974,
    frame: 690,
  },
  { step: 5, rule: 'B', chosenT: 27.02336429999923, frame: 811 },
  {
    step: 6,
    rule: 'A',
    lo: 29.450607499999023,
    hi: 29.60665919999883,
    refFrame: 888,
    probeCount: 2,
    differing: null,
    chosenT: 29.450607499999023,
    frame: 884,
  },
  {
    step: 7,
    rule: 'A',
    lo: 30.969828499997675,
    hi: 32.95070619999751,
    refFrame: 989,
    probeCount: 20,
    differing: null,
    chosenT: 30.969828499997675,
    frame: 929,
  },
  {
    step: 8,
    rule: 'A',
    lo: 35.92210199999681,
    hi: 36.71026559999882,
    refFrame: 1101,
    probeCount: 8,
    differing: { k: 1, t: 36.61026559999882, frame: 1098 },
    chosenT: 36.71026559999882,
    frame: 1101,
  },
  {
    step: 9,
    rule: 'A',
    lo: 37.52027479999742,
    hi: 41.18254619999789,
    refFrame: 1235,
    probeCount: 37,
    differing: { k: 2, t: 40.982546199997884, frame: 1229 },
    chosenT: 41.082546199997886,
    frame: 1232,
  },
  {
    step: 10,
    rule: 'A',
    lo: 43.75504119999823,
    hi: 46.13908299999821,
    refFrame: 1384,
    probeCount: 24,
    differing: { k: 1, t: 46.03908299999821, frame: 1381 },
    chosenT: 46.13908299999821,
    frame: 1384,
  },
  {
    step: 11,
    rule: 'A',
    lo: 102.63237599999775,
    hi: 107.89443389999724,
    refFrame: 3237,
    probeCount: 53,
    differing: { k: 8, t: 107.09443389999728, frame: 3213 },
    chosenT: 107.19443389999728,
    frame: 3216,
  },
  {
    step: 12,
    rule: 'A',
    lo: 108.81914559999859,
    hi: 110.24660210000002,
    refFrame: 3307,
    probeCount: 15,
    differing: { k: 3, t: 109.94660210000004, frame: 3298 },
    chosenT: 110.04660210000003,
    frame: 3301,
  },
  {
    step: 13,
    rule: 'A',
    lo: 112.14575580000019,
    hi: 114.87846029999855,
    refFrame: 3446,
    probeCount: 28,
    differing: { k: 1, t: 114.77846029999856, frame: 3443 },
    chosenT: 114.87846029999855,
    frame: 3446,
  },
];

/** Terminate row of §5: forward search, the probe at lo + 0.1 differs. */
export const GOLDEN_TERMINATE = {
  lo: 115.77721269999893,
  hi: 122.59999999999854,
  refFrame: 3473,
  differing: { k: 1, t: 115.87721269999892, frame: 3476 },
  chosenT: 115.97721269999892,
  frame: 3479,
};

/** The summary values of docs/pyautogui-code.md §6.1 (chosen times rounded to 4 decimals). */
export const GOLDEN_ROUNDED_TIMES = [
  6.2243, 8.5666, 10.0425, 14.9532, 23.0067, 27.0234, 29.4506, 30.9698, 36.7103, 41.0825, 46.1391,
  107.1944, 110.0466, 114.8785, 115.9772,
];
