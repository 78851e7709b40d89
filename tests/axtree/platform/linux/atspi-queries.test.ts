import { describe, expect, it } from 'vitest';
import {
  isNullRef,
  refKey,
  toAxNode,
  toBounds,
} from '../../../../src/axtree/platform/linux/atspi-queries';

describe('toBounds', () => {
  it.each([
    [[10, 20, 30, 40], { x: 10, y: 20, width: 30, height: 40 }],
    // unmapped widgets (docs/platform-linux.md §4 quirks)
    [[-2147483648, -2147483648, 0, 0], null],
    [[-2147483648, 5, 10, 10], null],
    [[0, 0, 0, 10], null],
    [[0, 0, -1, 10], null],
    [[-5, -5, 10, 10], { x: -5, y: -5, width: 10, height: 10 }],
    [[1, 2, 3], null],
    ['nope', null],
  ])('%j → %j', (extents, expected) => {
    expect(toBounds(extents)).toEqual(expected);
  });
});

describe('references', () => {
  it('keys and null references', () => {
    expect(refKey({ bus: ':1.4', path: '/org/a11y/atspi/accessible/3' })).toBe(
      ':1.4/org/a11y/atspi/accessible/3',
    );
    expect(isNullRef({ bus: ':1.4', path: '/org/a11y/atspi/null' })).toBe(true);
    expect(isNullRef({ bus: '', path: '/x' })).toBe(true);
    expect(isNullRef(null)).toBe(true);
    expect(isNullRef({ bus: ':1.4', path: '/org/a11y/atspi/accessible/root' })).toBe(false);
  });

  it('turns node info into an AxNode with decoded states', () => {
    expect(
      toAxNode({
        ref: { bus: ':1.4', path: '/p/3' },
        role: 'push button',
        name: 'Press Me',
        words: [2 ** 8 + 2 ** 25, 0],
        bounds: null,
      }),
    ).toEqual({
      role: 'push button',
      name: 'Press Me',
      states: ['enabled', 'showing'],
      bounds: null,
      children: [],
      ref: ':1.4/p/3',
    });
  });
});
