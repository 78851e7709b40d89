import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ActionCall, PyValue } from '../../../src/shared/domain/action';
import type { ContentStep } from '../../../src/pipeline/code/reduce-content';
import { reduceContent } from '../../../src/pipeline/code/reduce-content';
import { descriptionToCalls } from '../../../src/pipeline/code/description-to-calls';
import { stage1Description } from '../../../src/pipeline/code/stage1-description';
import type { ScrollTick } from '../../../src/pipeline/code/scroll-calls';
import { callsToCode } from '../../../src/shared/python/to-command';
import { parseCode } from '../../../src/pipeline/code/parse-code';
import { FIXTURE_STANDARDIZED_JSON } from './fixture-standardized';

const SCREEN = { width: 1366, height: 768 };

type CompleteRow = {
  id: number;
  action: string;
  description: string;
  coordinate: { x: number; y: number } | null;
  trace?: ScrollTick[];
  label: string;
};

// docs/agentnet-raw-format.md §15.4: the kept complete rows (id, action, description, coordinate,
// scroll trace) and their vis labels; stage 1 appends the synthetic terminate.
const ROWS: readonly CompleteRow[] = [
  {
    id: 0,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 1328, y: 745 },
    label: 'Click on Action Centre',
  },
  {
    id: 1,
    action: 'click',
    description: 'Single right Click',
    coordinate: { x: 1305, y: 393 },
    label: 'click',
  },
  {
    id: 2,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 1268, y: 406 },
    label: 'click',
  },
  {
    id: 3,
    action: 'drag',
    description: 'Drag from (621, 206) to (561, 213)',
    coordinate: { x: 621, y: 206 },
    label: 'drag',
  },
  {
    id: 4,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 360, y: 256 },
    label: 'click',
  },
  {
    id: 5,
    action: 'scroll',
    description: 'Scroll ⬇️×3  ',
    coordinate: null,
    trace: [
      { x: 541, y: 602, dx: 0, dy: -1 },
      { x: 541, y: 599, dx: 0, dy: -1 },
      { x: 542, y: 596, dx: 0, dy: -1 },
    ],
    label: 'scroll',
  },
  {
    id: 6,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 562, y: 277 },
    label: 'click',
  },
  {
    id: 7,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 544, y: 316 },
    label: 'click',
  },
  {
    id: 8,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 732, y: 563 },
    label: 'click on 1366x768',
  },
  {
    id: 9,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 640, y: 176 },
    label: 'Click on 1680x1050',
  },
  {
    id: 10,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 1039, y: 556 },
    label: 'Click on Keep changes',
  },
  {
    id: 20,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 218, y: 636 },
    label: 'Click on Power & sleep',
  },
  {
    id: 21,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 756, y: 306 },
    label: 'click on drop-down list',
  },
  {
    id: 22,
    action: 'click',
    description: 'Single left Click',
    coordinate: { x: 697, y: 680 },
    label: 'Click on 5 hours',
  },
  { id: -1, action: 'terminate', description: 'terminate', coordinate: null, label: 'terminate' },
];

// docs/pyautogui-code.md §6.1: the code of each of the 15 steps.
const GOLDEN_CODES: readonly string[] = [
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
  "computer.terminate(status='success')",
];

function convertFixture(): ContentStep[] {
  const steps = ROWS.map((row, index): ContentStep => {
    const description = stage1Description(row);
    const trace = row.action.includes('scroll') ? (row.trace ?? null) : null;
    return {
      instruction: row.label,
      calls: descriptionToCalls(description, SCREEN, trace),
      imageIndex: index,
    };
  });
  return reduceContent(steps);
}

/** orjson-like compact JSON of typed values: ints bare, integral floats with `.0`. */
function toJson(value: PyValue): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(toJson).join(',')}]`;
  }
  if ('int' in value) {
    return String(value.int);
  }
  return Number.isInteger(value.float) ? `${value.float}.0` : String(value.float);
}

function guiActionsJson(calls: readonly ActionCall[]): string {
  const items = calls.map((call) => {
    const args = Array.isArray(call.args)
      ? toJson(call.args)
      : `{${Object.entries(call.args)
          .map(([key, value]) => `${JSON.stringify(key)}:${toJson(value)}`)
          .join(',')}}`;
    return `{"action_type":${JSON.stringify(call.name)},"target":null,"args":${args}}`;
  });
  return `[${items.join(',')}]`;
}

describe('fixture episode win10-display-settings', () => {
  it('stage 1 appends the click coordinate (docs/pyautogui-code.md §6.2 event 0)', () => {
    expect(stage1Description(ROWS[0]!)).toBe('Single left Click (1328, 745)');
  });

  it('produces the 15 golden step codes of §6.1, nothing merged or dropped', () => {
    const steps = convertFixture();
    expect(steps.map((step) => callsToCode(step.calls))).toEqual(GOLDEN_CODES);
    expect(steps.map((step) => step.imageIndex)).toEqual(ROWS.map((_row, index) => index));
    expect(steps.map((step) => step.instruction)).toEqual(ROWS.map((row) => row.label));
    expect(steps.flatMap((step) => step.calls)).toHaveLength(17);
  });

  it('holds the full-precision typed args of the §6.2 standardized JSON, byte for byte', () => {
    expect(createHash('sha256').update(FIXTURE_STANDARDIZED_JSON).digest('hex')).toBe(
      'a14208293955fae1367ed347f18a183cee663b8caea9165b2ac5fc67b2c8df33',
    );
    const golden = [...FIXTURE_STANDARDIZED_JSON.matchAll(/"guiactions":(\[.*?\])\}/g)].map(
      (match) => match[1],
    );
    expect(golden).toHaveLength(15);
    expect(convertFixture().map((step) => guiActionsJson(step.calls))).toEqual(golden);
  });

  it('step 0 holds x = 1328/1366 and y = 745/768 unrounded', () => {
    const [first] = convertFixture();
    expect(first?.calls).toEqual([
      {
        name: 'click',
        args: { x: { float: 0.972181551976574 }, y: { float: 0.9700520833333334 } },
      },
    ]);
  });

  it('parses every golden code back to the same code', () => {
    for (const code of GOLDEN_CODES) {
      expect(callsToCode(parseCode(code))).toBe(code);
    }
  });
});
