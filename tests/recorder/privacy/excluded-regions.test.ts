// Excluded windows on the screen (issue 26, item 6): the rectangles each reading of the windows
// on the screen gives become `excluded-region` marks, erring on the side of blanking (a mark
// starts at the reading before the one that found it and ends with the reading that no longer
// does). Pure: the marks go to an in-memory sink.
import { describe, expect, it } from 'vitest';
import { CaptureExclusion } from '../../../src/recorder/privacy/capture-exclusion';
import { ExcludedRegions } from '../../../src/recorder/privacy/excluded-regions';
import { compileExclusions, exclusionRules } from '../../../src/recorder/privacy/exclusion';
import type {
  StackReading,
  StackSelect,
  WindowStackTracker,
} from '../../../src/recorder/windows/x11-window-stack';

type Mark = { tMs: number; kind: string; data: Record<string, unknown>; endMs: number | null };

function sink() {
  const marks: Mark[] = [];
  return {
    marks,
    sink: {
      open: (m: { tMs: number; kind: string; data: Record<string, unknown> }) =>
        marks.push({ ...m, endMs: null }),
      end: (kind: string, tMs: number, endMs: number) => {
        for (const m of marks) {
          if (m.kind === kind && m.tMs === tMs && m.endMs === null) {
            m.endMs = endMs;
          }
        }
      },
    },
  };
}

const A = {
  windowId: '0x1',
  rule: 'title:/secret/',
  bounds: { x: 0, y: 0, width: 10, height: 10 },
};
const B = {
  windowId: '0x2',
  rule: 'app:KeePassXC',
  bounds: { x: 50, y: 0, width: 10, height: 10 },
};

describe('ExcludedRegions', () => {
  it('item 34: opens a mark from the reading before, ends it with the reading that misses it', () => {
    const { marks, sink: s } = sink();
    const regions = new ExcludedRegions(s);
    regions.reading(100, 110, [A]); // there from the first reading: from its start
    regions.reading(600, 620, [A]);
    regions.reading(1000, 1030, [A, B]); // B appeared after 600
    regions.reading(1500, 1510, [B]); // A went before 1510
    expect(marks).toEqual([
      { tMs: 100, kind: 'excluded-region', data: { rule: A.rule, bounds: A.bounds }, endMs: 1510 },
      { tMs: 600, kind: 'excluded-region', data: { rule: B.rule, bounds: B.bounds }, endMs: null },
    ]);
    regions.close(2000);
    expect(marks[1]!.endMs).toBe(2000);
    regions.reading(2100, 2110, [A]); // after close: nothing
    expect(marks).toHaveLength(2);
  });

  it('item 34: a moved window is a new rectangle overlapping the old one in time', () => {
    const { marks, sink: s } = sink();
    const regions = new ExcludedRegions(s);
    regions.reading(0, 5, [A]);
    const moved = { ...A, bounds: { ...A.bounds, x: 30 } };
    regions.reading(200, 210, [moved]);
    expect(marks.map((m) => [m.tMs, m.endMs, (m.data.bounds as { x: number }).x])).toEqual([
      [0, 210, 0],
      [0 - 0.001, null, 30], // opened at the same instant as the first: a distinct start
    ]);
  });
});

describe('CaptureExclusion with a reader of the windows on the screen', () => {
  it('item 34: starts it with the first window entry, judges its clients, reads again on each change and ends the marks at close', () => {
    const { marks, sink: s } = sink();
    let select: StackSelect | null = null;
    let report: ((r: StackReading) => void) | null = null;
    let refreshes = 0;
    let stopped = 0;
    const stack: WindowStackTracker = {
      start: (onReading) => {
        report = onReading;
      },
      refresh: () => {
        refreshes += 1;
      },
      stop: () => {
        stopped += 1;
        return Promise.resolve();
      },
    };
    const exclusion = new CaptureExclusion(
      {
        matcher: compileExclusions(
          exclusionRules({ settings: { useDefaultExclusions: false }, excludeTitles: ['^secret'] }),
        ),
        windowStack: (pick) => {
          select = pick;
          return stack;
        },
      },
      s,
      () => 0,
    );
    const entry = {
      tMs: 50,
      change: 'initial' as const,
      windowId: '0x9',
      title: 'Editor',
      app: 'Gedit',
      appInstance: 'gedit',
      pid: null,
      bounds: null,
    };
    expect(exclusion.window(entry)).toEqual(entry); // the focused window is not excluded
    expect(select).not.toBeNull();
    const client = {
      windowId: '0x5',
      topLevelId: '0x6',
      title: 'Secret plans',
      app: 'Xmessage',
      appInstance: 'xmessage',
      frame: { x: 1, y: 2, width: 3, height: 4 },
      pid: null,
    };
    expect(select!(client)).toBe(true);
    expect(select!({ ...client, title: 'Plain' })).toBe(false);
    report!({ startMs: 40, endMs: 45, windows: [client] });
    exclusion.window({ ...entry, tMs: 60, change: 'title', title: 'Editor 2' });
    expect(refreshes).toBe(1);
    exclusion.close(500);
    expect(stopped).toBe(1);
    expect(marks).toEqual([
      {
        tMs: 40,
        kind: 'excluded-region',
        data: { rule: 'title:/^secret/', bounds: client.frame },
        endMs: 500 + 60_000, // the capture's tail after the stop request stays blanked
      },
    ]);
  });
});
