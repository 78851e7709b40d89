// Golden expectations on the fixture episode (docs/action-reduction.md §D.1, §D.2).
import { beforeAll, describe, expect, it } from 'vitest';
import { callsToCode } from '../../../src/pipeline/code';
import type { AgentNetBundle } from '../../../src/pipeline/io/agentnet-read';
import { readAgentNetFolder } from '../../../src/pipeline/io/agentnet-read';
import type { ReduceContext, ReduceResult } from '../../../src/pipeline/reduce';
import { reduce } from '../../../src/pipeline/reduce';
import { msToSeconds } from '../../../src/shared/clock';
import type { Step } from '../../../src/shared/domain/step';
import { FIXTURE_DIR } from '../../helpers/paths';
import { extraOf, ownershipViolations } from './ownership';

const CONTEXT: ReduceContext = {
  screen: { width: 1366, height: 768 },
  scaleFactor: 1,
  platform: 'win32',
  source: 'agentnet',
};

type GoldenRow = [
  id: number,
  kind: string,
  description: string,
  startS: number,
  endS: number,
  coordinate: [number, number],
  eventStartIdx: number,
  preMove: [startS: number, endS: number, eventStartIdx: number, count: number] | null,
];

const SCROLL_DOWN = '\u2B07\uFE0F';
const SCROLL_UP = '\u2B06\uFE0F';
const LEFT = 'Single left Click';

// §D.1, one row per step (ids 0–24).
const GOLDEN: readonly GoldenRow[] = [
  [
    0,
    'click',
    LEFT,
    30680.6270419,
    30681.0463558,
    [1328, 745],
    70,
    [30679.8280302, 30680.4766848, 0, 70],
  ],
  [
    1,
    'rightClick',
    'Single right Click',
    30682.6703082,
    30683.0689136,
    [1305, 393],
    146,
    [30681.9154633, 30682.5494329, 72, 74],
  ],
  [
    2,
    'click',
    LEFT,
    30683.982273,
    30684.4285981,
    [1268, 406],
    170,
    [30683.6461926, 30683.8374939, 148, 22],
  ],
  [
    3,
    'dragTo',
    'Drag from (621, 206) to (561, 213)',
    30689.356889,
    30693.6860564,
    [621, 206],
    245,
    [30687.6935524, 30688.9655571, 172, 73],
  ],
  [
    4,
    'click',
    LEFT,
    30697.3103478,
    30697.7861192,
    [360, 256],
    558,
    [30693.6873276, 30697.0614472, 311, 247],
  ],
  [
    5,
    'scroll',
    `Scroll ${SCROLL_DOWN}×3  `,
    30701.1270545,
    30702.2952018,
    [541, 602],
    682,
    [30698.5896232, 30700.9903471, 560, 122],
  ],
  [
    6,
    'click',
    LEFT,
    30703.7103494,
    30704.1432497,
    [562, 277],
    716,
    [30703.0542977, 30703.6296789, 689, 27],
  ],
  [
    7,
    'click',
    LEFT,
    30707.0543964,
    30707.5488574,
    [544, 316],
    743,
    [30704.5735187, 30704.879711, 718, 25],
  ],
  [
    8,
    'click',
    LEFT,
    30710.8139558,
    30711.1236989,
    [732, 563],
    773,
    [30709.5257922, 30710.3334417, 745, 28],
  ],
  [
    9,
    'click',
    LEFT,
    30715.2862364,
    30715.7012267,
    [640, 176],
    920,
    [30711.123965, 30715.129252, 775, 145],
  ],
  [
    10,
    'click',
    LEFT,
    30720.2427732,
    30720.7212756,
    [1039, 556],
    981,
    [30717.3587314, 30719.2652604, 922, 59],
  ],
  [
    11,
    'click',
    LEFT,
    30724.7022319,
    30725.1191227,
    [846, 782],
    1089,
    [30721.5254782, 30723.661402, 983, 106],
  ],
  [
    12,
    'click',
    LEFT,
    30728.1740395,
    30728.5684879,
    [827, 843],
    1172,
    [30725.8694852, 30727.9093764, 1091, 81],
  ],
  [
    13,
    'click',
    LEFT,
    30738.878335,
    30739.3093362,
    [835, 872],
    1450,
    [30732.0213978, 30736.1493874, 1174, 276],
  ],
  [
    14,
    'click',
    LEFT,
    30761.6553144,
    30762.1178886,
    [435, 790],
    2927,
    [30739.8854018, 30761.4039729, 1452, 1475],
  ],
  [
    15,
    'click',
    LEFT,
    30764.5328536,
    30764.9970028,
    [436, 708],
    2981,
    [30762.9681182, 30763.5394062, 2929, 52],
  ],
  [
    16,
    'click',
    LEFT,
    30767.3029144,
    30767.6842435,
    [1056, 566],
    3040,
    [30766.5334204, 30767.2534184, 2983, 57],
  ],
  [
    17,
    'click',
    LEFT,
    30768.7901673,
    30769.1895443,
    [773, 785],
    3100,
    [30767.6846716, 30768.6934378, 3042, 58],
  ],
  [18, 'click', LEFT, 30771.02202, 30771.44528, [773, 785], 3102, null],
  [
    19,
    'scroll',
    `Scroll ${SCROLL_DOWN}×6  `,
    30772.4852788,
    30775.357815,
    [1212, 756],
    3160,
    [30771.4453995, 30772.4053225, 3104, 56],
  ],
  [
    20,
    'click',
    LEFT,
    30781.9981241,
    30782.4223661,
    [218, 636],
    3602,
    [30776.2360662, 30781.1572336, 3175, 427],
  ],
  [
    21,
    'click',
    LEFT,
    30784.3502923,
    30784.7570196,
    [756, 306],
    3687,
    [30782.4228358, 30784.0132615, 3604, 83],
  ],
  [
    22,
    'click',
    LEFT,
    30788.9821505,
    30789.3809029,
    [697, 680],
    3967,
    [30785.749446, 30788.8213048, 3689, 278],
  ],
  [
    23,
    'scroll',
    `Scroll ${SCROLL_DOWN}×6  `,
    30791.5573467,
    30793.3655365,
    [1084, 779],
    4082,
    [30789.381507, 30791.3973307, 3969, 113],
  ],
  [24, 'scroll', `Scroll ${SCROLL_UP}×4  `, 30793.4696616, 30794.0718403, [1085, 779], 4089, null],
];

/** The step in the golden table's shape, times as seconds on the recording clock. */
function asRow(step: Step): GoldenRow {
  const pre = step.preMove;
  return [
    step.index,
    step.kind,
    step.description,
    msToSeconds(step.startMs),
    msToSeconds(step.endMs),
    [step.coordinate?.x ?? Number.NaN, step.coordinate?.y ?? Number.NaN],
    step.eventStartIdx ?? -1,
    pre === null
      ? null
      : [msToSeconds(pre.startMs), msToSeconds(pre.endMs), pre.eventStartIdx, pre.count],
  ];
}

let bundle: AgentNetBundle;
let result: ReduceResult;

beforeAll(async () => {
  bundle = await readAgentNetFolder(FIXTURE_DIR);
  result = reduce(bundle.events, CONTEXT);
});

function step(id: number): Step {
  const found = result.steps[id];
  if (found === undefined) {
    throw new Error(`no step ${id}`);
  }
  return found;
}

describe('fixture golden (§D.1)', () => {
  it('produces exactly the 25 steps of the table, times bit-exact', () => {
    // toEqual compares numbers with Object.is: bit-for-bit equality of every time.
    expect(result.steps.map(asRow)).toEqual(GOLDEN);
  });

  it('gives every step a stable id from its first main event and the default label', () => {
    expect(result.steps.map((s) => s.id)).toEqual(GOLDEN.map((row) => `r:${row[6]}`));
    expect(result.steps[3]!.label).toBe('drag');
    expect(result.steps[5]!.label).toBe('scroll');
    expect(result.steps[1]!.label).toBe('click');
  });

  it('owns the drag hold path of id 3 (64 moves, idx 246–309)', () => {
    const extra = extraOf(step(3));
    expect(extra.dragPath?.map((point) => point.idx)).toEqual(
      Array.from({ length: 64 }, (_, i) => 246 + i),
    );
    expect(extra.dragPath?.[0]).toMatchObject({ x: 621, y: 206 });
    expect(msToSeconds(extra.dragPath?.[0]?.tMs ?? 0)).toBe(30689.5175517);
    expect(msToSeconds(extra.dragPath?.[63]?.tMs ?? 0)).toBe(30691.0616335);
    expect(extra.agentnet.drag_time_trace?.[0]).toBe(30689.5175517);
    expect(extra.agentnet.drag_trace).toHaveLength(64);
  });

  it('keeps the scroll ticks and in-group moves of ids 5, 19, 23, 24', () => {
    const ticks = (id: number) =>
      extraOf(step(id)).ticks?.map(({ idx, x, y, dx, dy, tMs }) => [
        idx,
        x,
        y,
        dx,
        dy,
        msToSeconds(tMs),
      ]);
    expect(ticks(5)).toEqual([
      [682, 541, 602, 0, -1, 30701.1270545],
      [685, 541, 599, 0, -1, 30701.4703374],
      [688, 542, 596, 0, -1, 30702.0952018],
    ]);
    expect(ticks(19)?.map(([idx, x, y]) => [idx, x, y])).toEqual([
      [3160, 1212, 756],
      [3161, 1212, 756],
      [3169, 1219, 758],
      [3170, 1219, 758],
      [3173, 1223, 758],
      [3174, 1223, 758],
    ]);
    const times19 = extraOf(step(19)).ticks!.map((tick) => msToSeconds(tick.tMs));
    const gaps = times19.slice(1).map((t, i) => t - times19[i]!);
    expect(Math.max(...gaps)).toBeCloseTo(2.0464801, 7);
    expect(ticks(23)?.map(([idx, x, y, , dy]) => [idx, x, y, dy])).toEqual([
      [4082, 1084, 779, -1],
      [4084, 1085, 779, -1],
      [4085, 1085, 779, -1],
      [4086, 1085, 779, -1],
      [4087, 1085, 779, -1],
      [4088, 1085, 779, -1],
    ]);
    expect(ticks(24)?.map(([idx, x, y, , dy]) => [idx, x, y, dy])).toEqual([
      [4089, 1085, 779, 1],
      [4090, 1085, 779, 1],
      [4093, 1084, 774, 1],
      [4094, 1084, 774, 1],
    ]);
    expect([5, 19, 23, 24].map((id) => extraOf(step(id)).pathIdx.length)).toEqual([4, 9, 1, 2]);
  });

  it('splits ids 17/18 (same point, 2.23 s apart) into two single clicks', () => {
    expect([step(17).kind, step(18).kind]).toEqual(['click', 'click']);
    const gap = msToSeconds(step(18).startMs) - msToSeconds(step(17).startMs);
    expect(gap).toBeCloseTo(2.2318527, 7);
  });

  it('accounts for every move and leaves only the stop chord unowned', () => {
    const moves = bundle.events.filter((e) => e.kind === 'move').length;
    const preMoves = result.steps.reduce((sum, s) => sum + (s.preMove?.count ?? 0), 0);
    const dragMoves = result.steps.reduce((sum, s) => sum + (extraOf(s).dragPath?.length ?? 0), 0);
    const scrollMoves = result.steps
      .filter((s) => s.kind === 'scroll')
      .reduce((sum, s) => sum + extraOf(s).pathIdx.length, 0);
    expect([moves, preMoves, dragMoves, scrollMoves]).toEqual([4034, 3954, 64, 16]);
    expect(result.unowned).toEqual(
      [4095, 4096, 4097, 4098].map((idx) => ({
        idx,
        reason: 'control-input',
      })),
    );
    expect(result.diagnostics).toEqual([]);
    expect(ownershipViolations(result, bundle.events)).toEqual([]);
  });

  it('exports the codes of §D (scroll y 779 clamps to 1.0)', () => {
    expect(callsToCode(step(5).calls)).toBe(
      'pyautogui.moveTo(x=0.396, y=0.7839)\npyautogui.scroll(-3)',
    );
    expect(callsToCode(step(23).calls)).toBe(
      'pyautogui.moveTo(x=0.7936, y=1.0)\npyautogui.scroll(-6)',
    );
    expect(callsToCode(step(24).calls)).toBe(
      'pyautogui.moveTo(x=0.7943, y=1.0)\npyautogui.scroll(4)',
    );
  });

  it('exports the codes of the kept steps (docs/pyautogui-code.md §6.1)', () => {
    const kept = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 21, 22];
    expect(kept.map((id) => callsToCode(step(id).calls))).toEqual([
      'pyautogui.click(x=0.9722, y=0.9701)',
      'pyautogui.rightClick(x=0.9553, y=0.5117)',
      'pyautogui.click(x=0.9283, y=0.5286)',
      "pyautogui.moveTo(x=0.4546, y=0.2682)\npyautogui.dragTo(x=0.4107, y=0.2773, button='left')",
      'pyautogui.click(x=0.2635, y=0.3333)',
      'pyautogui.moveTo(x=0.396, y=0.7839)\npyautogui.scroll(-3)',
      'pyautogui.click(x=0.4114, y=0.3607)',
      'pyautogui.click(x=0.3982, y=0.4115)',
      'pyautogui.click(x=0.5359, y=0.7331)',
      'pyautogui.click(x=0.4685, y=0.2292)',
      'pyautogui.click(x=0.7606, y=0.724)',
      'pyautogui.click(x=0.1596, y=0.8281)',
      'pyautogui.click(x=0.5534, y=0.3984)',
      'pyautogui.click(x=0.5102, y=0.8854)',
    ]);
    // full-precision args (docs/pyautogui-code.md §6.1)
    expect(step(0).calls[0]?.args).toEqual({
      x: { float: 0.972181551976574 },
      y: { float: 0.9700520833333334 },
    });
  });

  it('is deterministic', () => {
    const again = reduce(bundle.events, CONTEXT);
    expect(again).toEqual(result);
    expect(JSON.stringify(again)).toBe(JSON.stringify(result));
  });
});

describe('parity with the upstream reduced rows (§D.2)', () => {
  const PARITY_IDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 21, 22];

  it('matches start/end, description, event_start_idx, coordinate and pre_move of every kept row', () => {
    const rows = bundle.reduced.complete;
    expect(rows.map((row) => row.id)).toEqual(PARITY_IDS);
    for (const row of rows) {
      const ours = step(row.id as number);
      const extra = extraOf(ours);
      const upstreamPre = row.pre_move as Record<string, unknown>;
      const expected = {
        start_time: row.start_time,
        end_time: row.end_time,
        description: row.description,
        event_start_idx: row.event_start_idx,
        coordinate: row.action === 'scroll' ? undefined : row.coordinate,
        trace: row.trace,
        pre_move: [
          upstreamPre.start_time,
          upstreamPre.end_time,
          upstreamPre.event_start_idx,
          (upstreamPre.trace as unknown[]).length,
        ],
      };
      const actual = {
        start_time: msToSeconds(ours.startMs),
        end_time: msToSeconds(ours.endMs),
        description: ours.description,
        event_start_idx: ours.eventStartIdx,
        coordinate: row.action === 'scroll' ? undefined : ours.coordinate,
        trace: extra.agentnet.trace,
        pre_move: [
          extra.agentnet.pre_move?.start_time,
          extra.agentnet.pre_move?.end_time,
          extra.agentnet.pre_move?.event_start_idx,
          extra.agentnet.pre_move?.trace.length,
        ],
      };
      expect(actual, `id ${String(row.id)}`).toEqual(expected);
    }
  });

  it('is within 1 ms of the upstream times (and in fact exact)', () => {
    for (const row of bundle.reduced.complete) {
      const ours = step(row.id as number);
      expect(Math.abs(msToSeconds(ours.startMs) - (row.start_time as number))).toBeLessThan(0.001);
      expect(Math.abs(msToSeconds(ours.endMs) - (row.end_time as number))).toBeLessThan(0.001);
      expect(msToSeconds(ours.endMs)).toBe(row.end_time);
    }
  });

  it('matches the upstream time_trace / drag_trace / pre_move traces of the kept rows', () => {
    for (const row of bundle.reduced.complete) {
      const agentnet = extraOf(step(row.id as number)).agentnet;
      const upstreamPre = row.pre_move as Record<string, unknown>;
      expect(agentnet.time_trace, `id ${String(row.id)}`).toEqual(row.time_trace);
      expect(agentnet.pre_move?.trace).toEqual(upstreamPre.trace);
      expect(agentnet.pre_move?.time_trace).toEqual(upstreamPre.time_trace);
      if (row.action === 'drag') {
        expect(agentnet.drag_trace).toEqual(row.drag_trace);
        expect(agentnet.drag_time_trace).toEqual(row.drag_time_trace);
      }
      expect(agentnet.action).toBe(row.action);
    }
  });
});
