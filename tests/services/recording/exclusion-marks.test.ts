// Crash recovery of `excluded` marks: a recorder that died while an excluded window was in front
// left its mark without an end; recovery ends it at the next window that is not excluded, else
// at the end of what was recorded (the video's last frame or the last event). Real SQLite.
import { afterEach, describe, expect, it } from 'vitest';
import {
  endOpenExclusionMarks,
  exclusionDumpFilter,
  withoutExcludedMoves,
} from '../../../src/services/recording/exclusion-marks';
import type { RawEvent } from '../../../src/shared/domain';
import { LibrarySink } from '../../../src/services/recording/library-sink';
import { pixelRedactions } from '../../../src/services/privacy/redact-media';
import { insertEvents, insertMark, insertVideo, listMarks } from '../../../src/store';
import { tempLibrary } from '../../helpers/library';
import { makeRecording } from '../../helpers/store';

const libs: ReturnType<typeof tempLibrary>[] = [];
afterEach(() => libs.splice(0).forEach((t) => t.cleanup()));

const win = (tMs: number, title: string) => ({
  tMs,
  change: 'activated' as const,
  windowId: '0x1',
  title,
  app: null,
  appInstance: null,
  pid: null,
  bounds: null,
});

describe('endOpenExclusionMarks', () => {
  it('ends open excluded marks at the next kept window, else at the end of the recording', () => {
    const t = tempLibrary();
    libs.push(t);
    const { seq } = makeRecording(t.lib.db, { videoStartMs: 1000 });
    const sink = new LibrarySink(t.lib, seq, 'recordings/x');
    sink.window(win(1000, 'Editor'));
    sink.window(win(2000, 'excluded'));
    sink.mark({ tMs: 2000, endMs: null, kind: 'excluded', data: { rule: 'app:Vault' } });
    sink.window(win(2500, 'excluded')); // another excluded window: the interval goes on
    sink.window(win(3000, 'Editor'));
    sink.window(win(4000, 'excluded'));
    sink.mark({ tMs: 4000, endMs: null, kind: 'excluded', data: { rule: 'title:/x/' } });
    sink.mark({ tMs: 100, endMs: 200, kind: 'excluded', data: {} }); // ended by the session
    sink.mark({ tMs: 4100, endMs: null, kind: 'note', data: {} }); // not an exclusion
    insertVideo(t.lib.db, seq, 0, {
      path: 'recordings/x/video-0.mp4',
      width: 320,
      height: 240,
      fps: 10,
      frameCount: 50,
      durationMs: 5000,
      startMs: 1000,
      startMethod: 'test',
      codec: 'h264',
      sizeBytes: 1,
      sha256: null,
    });
    expect(endOpenExclusionMarks(t.lib, seq)).toBe(2);
    const marks = listMarks(t.lib.db, seq).map((m) => [m.kind, m.tMs, m.endMs]);
    expect(marks).toEqual([
      ['excluded', 100, 200],
      ['excluded', 2000, 3000],
      ['excluded', 4000, 6000],
      ['note', 4100, null],
    ]);
    expect(endOpenExclusionMarks(t.lib, seq)).toBe(0);
  });

  it('item 34: ends open excluded-region marks at the end of what was recorded; exports blank their box', () => {
    const t = tempLibrary();
    libs.push(t);
    const { seq } = makeRecording(t.lib.db, { videoStartMs: 1000 });
    const box = { x: 10, y: 20, width: 30, height: 40 };
    const rule = 'title:/secret/';
    insertMark(t.lib.db, seq, {
      tMs: 900,
      endMs: 1500,
      kind: 'excluded-region',
      data: { rule, bounds: box },
    });
    insertMark(t.lib.db, seq, {
      tMs: 1200.5,
      endMs: null,
      kind: 'excluded-region',
      data: { rule, bounds: box },
    });
    insertMark(t.lib.db, seq, { tMs: 1300, endMs: null, kind: 'excluded-region', data: { rule } });
    insertEvents(t.lib.db, seq, [ev(0, 6400.2, 'move', 1, 1)]);
    insertVideo(t.lib.db, seq, 0, {
      path: 'recordings/x/video-0.mp4',
      width: 320,
      height: 240,
      fps: 10,
      frameCount: 50,
      durationMs: 5000,
      startMs: 1000,
      startMethod: 'test',
      codec: 'h264',
      sizeBytes: 1,
      sha256: null,
    });
    expect(endOpenExclusionMarks(t.lib, seq)).toBe(2);
    expect(listMarks(t.lib.db, seq).map((m) => [m.tMs, m.endMs])).toEqual([
      [900, 1500],
      [1200.5, 6401], // the last event, after the video's end, rounded up
      [1300, 6401],
    ]);
    // every export, keyframe and upload: the box over its time; no readable bounds: whole frame
    expect(pixelRedactions(t.lib, seq)).toEqual([
      { startMs: 900, endMs: 1500, box },
      { startMs: 1200.5, endMs: 6401, box },
      { startMs: 1300, endMs: 6401, box: null },
    ]);
    // the upload's dump leaves their rule out, their bounds and times go
    const filter = exclusionDumpFilter(t.lib, seq)!;
    const row = { id: 1, t_ms: 900, end_ms: 1500, kind: 'excluded-region' };
    expect(filter('marks', { ...row, data_json: JSON.stringify({ rule, bounds: box }) })).toEqual({
      ...row,
      data_json: JSON.stringify({ bounds: box }),
    });
  });

  it('the session sink sets the end of the mark it opened', () => {
    const t = tempLibrary();
    libs.push(t);
    const { seq } = makeRecording(t.lib.db);
    const sink = new LibrarySink(t.lib, seq, 'recordings/x');
    sink.mark({ tMs: 10, endMs: null, kind: 'excluded', data: { rule: 'app:Vault' } });
    sink.endMark('excluded', 10, 25);
    expect(listMarks(t.lib.db, seq)).toEqual([
      { tMs: 10, endMs: 25, kind: 'excluded', data: { rule: 'app:Vault' } },
    ]);
    expect(sink.errors).toEqual([]);
  });
});

const ev = (idx: number, tMs: number, kind: RawEvent['kind'], x: number, y: number): RawEvent => ({
  idx,
  tMs,
  kind,
  x,
  y,
  button: kind === 'move' ? null : 'left',
  keycode: null,
  key: null,
  char: null,
  keyRaw: null,
  modifiers: 0,
  dx: null,
  dy: null,
  flags: 0,
});

const BOUNDS = { x: 100, y: 100, width: 200, height: 100 };

describe('pointer moves over excluded windows (what leaves)', () => {
  const events = [
    ev(0, 500, 'move', 150, 150), // over the window's area, before its interval: kept
    ev(1, 1000, 'move', 150, 150), // over it, inside the interval: left out
    ev(2, 1100, 'move', 299, 199), // its last pixel: left out
    ev(3, 1200, 'move', 300, 150), // just right of it: kept (aimed at another window)
    ev(4, 1300, 'down', 150, 150), // a button stored inside: judged at capture, kept
    ev(5, 2000, 'move', 150, 150), // the interval's end: kept
    ev(6, 3500, 'move', 10, 10), // inside an interval without bounds: left out
  ];
  const marks = [
    { tMs: 1000, endMs: 2000, kind: 'excluded', data: { rule: 'app:Vault', bounds: BOUNDS } },
    { tMs: 3000, endMs: null, kind: 'excluded', data: { rule: 'title:/x/', bounds: null } },
    { tMs: 0, endMs: 9000, kind: 'app-input', data: {} },
  ];

  it('leaves out the moves inside an interval and the bounds (all of it without bounds)', () => {
    expect(withoutExcludedMoves(events, marks).map((e) => e.idx)).toEqual([0, 3, 4, 5]);
    expect(withoutExcludedMoves(events, [marks[2]!]).map((e) => e.idx)).toEqual([
      0, 1, 2, 3, 4, 5, 6,
    ]);
  });

  it("the upload dump leaves out those rows and every excluded mark's rule", () => {
    const t = tempLibrary();
    libs.push(t);
    const { seq } = makeRecording(t.lib.db, {});
    const filterNone = exclusionDumpFilter(t.lib, seq);
    expect(filterNone).toBeNull();
    insertEvents(t.lib.db, seq, events);
    for (const m of marks) {
      insertMark(t.lib.db, seq, m);
    }
    const filter = exclusionDumpFilter(t.lib, seq)!;
    const kept = events.filter((e) => filter('events', { idx: e.idx, t_ms: e.tMs }) !== null);
    expect(kept.map((e) => e.idx)).toEqual([0, 3, 4, 5]);
    const mark = { id: 1, t_ms: 1000, end_ms: 2000, kind: 'excluded' };
    expect(filter('marks', { ...mark, data_json: JSON.stringify(marks[0]!.data) })).toEqual({
      ...mark,
      data_json: JSON.stringify({ bounds: BOUNDS }),
    });
    const other = { id: 3, t_ms: 0, end_ms: 9000, kind: 'app-input', data_json: '{"rule":"x"}' };
    expect(filter('marks', other)).toEqual(other);
    expect(filter('steps', { step_id: 'a' })).toEqual({ step_id: 'a' });
  });
});
