import { describe, expect, it } from 'vitest';
import type { ActionCall } from '../../../src/shared/domain';
import { callsPreview } from '../../../src/renderer/lib/code-preview';
import {
  DEFAULT_SORT,
  EMPTY_FILTERS,
  hasActiveFilters,
  nextSort,
  toRecordingQuery,
} from '../../../src/renderer/lib/library-query';
import { reviewActions } from '../../../src/renderer/lib/review-workflow';
import { parseRoute, routeHash } from '../../../src/renderer/lib/route';
import { idsInRange, selectionSize, setIds, toggleId } from '../../../src/renderer/lib/selection';
import { shortcutFor, type KeyInput } from '../../../src/renderer/lib/shortcuts';
import { localDateEndMs, localDateStartMs } from '../../../src/renderer/lib/time';

describe('toRecordingQuery', () => {
  it('sends only the filters that are set', () => {
    expect(toRecordingQuery(EMPTY_FILTERS, DEFAULT_SORT, 0, 500)).toEqual({
      sort: 'created',
      order: 'desc',
      offset: 0,
      limit: 500,
    });
  });

  it('maps every filter', () => {
    const q = toRecordingQuery(
      {
        search: '  display settings ',
        reviewStatus: 'needs-edit',
        status: 'complete',
        os: 'win32',
        fromDate: '2024-11-01',
        toDate: '2024-11-30',
      },
      { key: 'steps', order: 'asc' },
      1000,
      500,
    );
    expect(q).toEqual({
      search: 'display settings',
      reviewStatus: 'needs-edit',
      status: 'complete',
      os: 'win32',
      fromMs: localDateStartMs('2024-11-01'),
      toMs: localDateEndMs('2024-11-30'),
      sort: 'steps',
      order: 'asc',
      offset: 1000,
      limit: 500,
    });
    expect(hasActiveFilters({ ...EMPTY_FILTERS, os: 'linux' })).toBe(true);
    expect(hasActiveFilters(EMPTY_FILTERS)).toBe(false);
  });

  it.each([
    [{ key: 'created', order: 'desc' }, 'created', { key: 'created', order: 'asc' }],
    [{ key: 'created', order: 'asc' }, 'created', { key: 'created', order: 'desc' }],
    [{ key: 'created', order: 'desc' }, 'task', { key: 'task', order: 'asc' }],
    [{ key: 'task', order: 'asc' }, 'duration', { key: 'duration', order: 'desc' }],
  ] as const)('sort %o, click %s', (current, key, expected) => {
    expect(nextSort(current, key)).toEqual(expected);
  });
});

describe('selection', () => {
  it('toggles, ranges and counts', () => {
    let sel = toggleId({}, 'a');
    sel = toggleId(sel, 'b');
    sel = toggleId(sel, 'a');
    expect(sel).toEqual({ b: true });
    const rows = { 0: { id: 'a' }, 1: { id: 'b' }, 3: { id: 'd' } };
    expect(idsInRange(rows, 3, 0)).toEqual(['a', 'b', 'd']);
    expect(selectionSize(setIds(sel, ['x', 'y'], true))).toBe(3);
    expect(setIds({ a: true, b: true }, ['a'], false)).toEqual({ b: true });
  });
});

describe('shortcutFor', () => {
  const key = (over: Partial<KeyInput>): KeyInput => ({
    key: '',
    ctrlKey: false,
    metaKey: false,
    shiftKey: false,
    altKey: false,
    isEditableTarget: false,
    ...over,
  });
  it.each([
    [key({ key: 'z', ctrlKey: true }), 'undo'],
    [key({ key: 'Z', ctrlKey: true, shiftKey: true }), 'redo'],
    [key({ key: 'z', metaKey: true }), 'undo'],
    [key({ key: 'y', ctrlKey: true }), 'redo'],
    [key({ key: 'z', ctrlKey: true, isEditableTarget: true }), null],
    [key({ key: 'ArrowUp' }), 'prev-step'],
    [key({ key: 'ArrowDown' }), 'next-step'],
    [key({ key: 'ArrowDown', isEditableTarget: true }), null],
    [key({ key: 'Delete' }), 'delete-step'],
    [key({ key: 'Delete', isEditableTarget: true }), null],
    [key({ key: ' ' }), 'toggle-play'],
    [key({ key: ' ', isEditableTarget: true }), null],
    [key({ key: 'ArrowDown', ctrlKey: true }), null],
    [key({ key: 'a' }), null],
  ])('%o → %s', (input, command) => {
    expect(shortcutFor(input)).toBe(command);
  });
});

describe('routes', () => {
  it.each([
    ['', { page: 'library' }],
    ['#/', { page: 'library' }],
    ['#/recording/57cae780-6e3c', { page: 'recording', id: '57cae780-6e3c' }],
    ['#/recording/a%20b/', { page: 'recording', id: 'a b' }],
    ['#/recording/%E0%A4%A', { page: 'library' }],
    ['#/nope', { page: 'library' }],
    ['#/uploads', { page: 'uploads' }],
    ['#/record', { page: 'record' }],
    ['#/health/', { page: 'health' }],
    ['#/settings', { page: 'settings' }],
    ['#/hud', { page: 'hud' }],
    ['#/hud/x', { page: 'library' }],
  ])('%s', (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });

  it('round-trips ids', () => {
    const route = { page: 'recording', id: 'x/y?z' } as const;
    expect(parseRoute(routeHash(route))).toEqual(route);
  });

  it.each(['library', 'uploads', 'record', 'health', 'settings', 'hud'] as const)(
    'round-trips %s',
    (page) => {
      expect(parseRoute(routeHash({ page }))).toEqual({ page });
    },
  );
});

describe('reviewActions', () => {
  it.each([
    ['draft', ['submitted']],
    ['submitted', ['accepted', 'needs-edit', 'rejected', 'draft']],
    ['needs-edit', ['submitted', 'draft']],
    ['accepted', ['draft', 'needs-edit', 'rejected']],
    ['rejected', ['draft', 'accepted', 'needs-edit']],
  ] as const)('%s → %o', (status, targets) => {
    expect(reviewActions(status).map((a) => a.to)).toEqual(targets);
  });
});

describe('callsPreview', () => {
  // code strings as `cua-annotator show` prints them for the fixture
  it.each<[ActionCall[], string]>([
    [
      [
        {
          name: 'click',
          args: { x: { float: 0.9722181551976574 }, y: { float: 0.9700520833333334 } },
        },
      ],
      'pyautogui.click(x=0.9722, y=0.9701)',
    ],
    [
      [
        { name: 'moveTo', args: { x: { float: 0.396 }, y: { float: 0.7839 } } },
        { name: 'scroll', args: { clicks: { int: -3 } } },
      ],
      'pyautogui.moveTo(x=0.396, y=0.7839)\npyautogui.scroll(-3)',
    ],
    [
      [{ name: 'dragTo', args: { x: { float: 0.4107 }, y: { float: 0.2773 }, button: 'left' } }],
      "pyautogui.dragTo(x=0.4107, y=0.2773, button='left')",
    ],
    [[{ name: 'hotkey', args: { keys: ['ctrl', 'c'] } }], "pyautogui.hotkey(keys=['ctrl', 'c'])"],
    [[{ name: 'write', args: { message: "it's" } }], 'pyautogui.write(message="it\'s")'],
    [
      [{ name: 'tripleClick', args: { x: { float: 1 }, y: { float: 0 } } }],
      'computer.tripleClick(x=1.0, y=0.0)',
    ],
    [[{ name: 'terminate', args: { status: 'success' } }], "computer.terminate(status='success')"],
    // the values where a JavaScript approximation differs from Python: round-half-even on the
    // binary value, float repr, `page` as a bare keyword, non-printable characters
    [
      [{ name: 'click', args: { x: { float: 0.00015 }, y: { float: 0.12345 } } }],
      'pyautogui.click(x=0.0001, y=0.1235)',
    ],
    [
      [{ name: 'moveTo', args: { x: { float: 1e-5 }, y: { float: 2.5 } } }],
      'pyautogui.moveTo(x=0.0, y=2.5)',
    ],
    [[{ name: 'hscroll', args: { page: { int: 2 } } }], 'pyautogui.hscroll(2)'],
    [
      [{ name: 'write', args: { message: 'a\u0007b\u00e9' } }],
      "pyautogui.write(message='a\\x07bé')",
    ],
  ])('%j', (calls, code) => {
    expect(callsPreview(calls)).toBe(code);
  });

  it('shows a value Python could not print as a comment instead of failing', () => {
    // an int past 2^53 (an edit field holding a huge number) has no exact Python value here
    expect(callsPreview([{ name: 'scroll', args: { clicks: { int: 2 ** 60 } } }])).toBe(
      '# scroll: Python int value 1152921504606847000 is not a safe integer',
    );
  });
});
