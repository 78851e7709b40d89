import { describe, expect, it } from 'vitest';
import type { Stage1Row } from '../../../src/pipeline/code/stage1-description';
import { stage1Description } from '../../../src/pipeline/code/stage1-description';

// docs/agentnet-raw-format.md §12.2 (stage-1 rewrite, steps 2 and 3).
const CASES: readonly [label: string, row: Stage1Row, expected: string][] = [
  [
    'click rows get the coordinate',
    { action: 'click', description: 'Single left Click', coordinate: { x: 1328, y: 745 } },
    'Single left Click (1328, 745)',
  ],
  [
    'mouse_press rows are cut at the newline, then get the coordinate',
    {
      action: 'mouse_press',
      description: 'Mouse long press left button:\n⌨️ Type: a\n',
      coordinate: { x: 300, y: 300 },
    },
    'Mouse long press left button: (300, 300)',
  ],
  [
    'a description containing "click" counts as a click row',
    {
      action: 'press',
      description: '⌨️ Long Press: $ctrl$ + 2 Clicks',
      coordinate: { x: 5, y: 6 },
    },
    '⌨️ Long Press: $ctrl$ + 2 Clicks (5, 6)',
  ],
  [
    'click rows with a "(" are left alone',
    { action: 'click', description: 'Single left Click (1, 2)', coordinate: { x: 3, y: 4 } },
    'Single left Click (1, 2)',
  ],
  [
    'drag rows are left alone',
    {
      action: 'drag',
      description: 'Drag from (621, 206) to (561, 213)',
      coordinate: { x: 621, y: 206 },
    },
    'Drag from (621, 206) to (561, 213)',
  ],
  [
    'scroll rows are left alone',
    { action: 'scroll', description: 'Scroll ⬇️×3  ', coordinate: null },
    'Scroll ⬇️×3  ',
  ],
  [
    'type rows are cut at the first newline',
    { action: 'type', description: '⌨️ Type: abc\nmore' },
    '⌨️ Type: abc',
  ],
  [
    'float coordinates print like Python str(float)',
    { action: 'click', description: 'Single left Click', coordinate: { x: 300.5, y: -2 } },
    'Single left Click (300.5, -2)',
  ],
];

describe('stage1Description', () => {
  it.each(CASES)('%s', (_label, row, expected) => {
    expect(stage1Description(row)).toBe(expected);
  });

  it('throws for a click row without a coordinate', () => {
    expect(() => stage1Description({ action: 'click', description: 'Single left Click' })).toThrow(
      expect.objectContaining({ code: 'INVALID_PAYLOAD' }),
    );
  });
});
