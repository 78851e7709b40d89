// The recorder's sink on top of the library: every batch is committed in its own transaction,
// so a killed recorder loses at most the batch in flight (≤ 100 ms of input).
import path from 'node:path';
import type { AxElementRecord, AxSnapshot } from '../../axtree/model';
import type { InputEvent } from '../../recorder/input/normalize-input-event';
import type { RecordingSink, SessionMark, VideoSegment } from '../../recorder/session';
import type { ActiveWindowEntry } from '../../recorder/windows/active-window';
import {
  activatingPress,
  CLICK_ACTIVATION_MAX_MS,
  type PressPoint,
} from '../../recorder/windows/click-activation';
import {
  endOpenMarks,
  getCapture,
  insertAxRecords,
  insertEvents,
  insertMark,
  insertWindows,
  retimeWindow,
  updateRecording,
} from '../../store';
import type { Library } from '../library/library';

/** A stored window entry and the stamp it got. */
type StoredWindow = { entry: ActiveWindowEntry; tMs: number };

/** How many stored entries are kept for re-stamping. */
const STORED_WINDOWS_KEPT = 8;

/** A sink writing one recording's streams into the library. */
export class LibrarySink implements RecordingSink {
  private nextIdx = 0;
  /** Presses of the last {@link CLICK_ACTIVATION_MAX_MS} (a click may have activated a window). */
  private presses: PressPoint[] = [];
  /** The latest stored window entries, oldest first. */
  private stored: StoredWindow[] = [];
  /** Problems writing (kept, reported at the end; capture goes on). */
  readonly errors: string[] = [];

  constructor(
    private readonly lib: Library,
    private readonly seq: number,
    private readonly relDir: string,
  ) {}

  /** Events stored so far. */
  get eventCount(): number {
    return this.nextIdx;
  }

  private write(what: string, fn: () => void): void {
    try {
      this.lib.db.transaction(fn)();
    } catch (e) {
      this.errors.push(`${what}: ${(e as Error).message}`);
    }
  }

  events(batch: InputEvent[]): void {
    const start = this.nextIdx;
    const rows = batch.map((e, i) => ({ ...e, idx: start + i }));
    this.write('events', () => insertEvents(this.lib.db, this.seq, rows));
    this.nextIdx += batch.length;
    for (const e of batch) {
      if (e.kind === 'down' && e.x !== null && e.y !== null) {
        this.notePress({ tMs: e.tMs, x: e.x, y: e.y });
      }
    }
  }

  // A press that reaches us after the activation it caused (exclusion rules hold input until
  // the window timeline has caught up): the stored activation moves back to the press.
  private notePress(press: PressPoint): void {
    this.presses = [...this.presses, press].filter(
      (p) => p.tMs >= press.tMs - CLICK_ACTIVATION_MAX_MS,
    );
    const last = this.stored.at(-1);
    if (last && last.tMs === last.entry.tMs) {
      const { previous, passing } = this.before(this.stored.length - 1);
      const hit = activatingPress(last.entry, previous, [press]);
      if (hit) {
        this.retime([...passing, last], Math.max(hit.tMs, previous?.tMs ?? hit.tMs));
      }
    }
  }

  // The entry that had a window before stored entry `i`, and the no-window entries between
  // them (focus passing from one window to the next), which move with an activation re-stamped.
  private before(i: number): {
    previous: { tMs: number; windowId: string | null; bounds: ActiveWindowEntry['bounds'] } | null;
    passing: StoredWindow[];
  } {
    const passing: StoredWindow[] = [];
    for (let j = i - 1; j >= 0; j -= 1) {
      const w = this.stored[j] as StoredWindow;
      if (w.entry.windowId !== null || w.entry.title !== null) {
        return {
          previous: { tMs: w.tMs, windowId: w.entry.windowId, bounds: w.entry.bounds },
          passing,
        };
      }
      passing.unshift(w);
    }
    return { previous: null, passing };
  }

  private retime(rows: StoredWindow[], tMs: number): void {
    this.write('window', () => {
      for (const row of rows) {
        retimeWindow(this.lib.db, this.seq, row.tMs, tMs);
        row.tMs = tMs;
      }
    });
  }

  // Stores a timeline entry; an activation made by a press (a click on a window in the
  // background) is stamped with the press, so the click's step names the window it brought to
  // the front (issue 26, item 17; src/recorder/windows/click-activation.ts).
  window(entry: ActiveWindowEntry): void {
    this.stored.push({ entry, tMs: entry.tMs });
    if (this.stored.length > STORED_WINDOWS_KEPT) {
      this.stored.shift();
    }
    const { previous, passing } = this.before(this.stored.length - 1);
    const press = activatingPress(entry, previous, this.presses);
    const row = this.stored.at(-1) as StoredWindow;
    if (press) {
      // the no-window entries in between go first, at the same time
      this.retime(passing, Math.max(press.tMs, previous?.tMs ?? press.tMs));
      row.tMs = Math.max(press.tMs, previous?.tMs ?? press.tMs);
    }
    const tMs = row.tMs;
    this.write('window', () =>
      insertWindows(this.lib.db, this.seq, [
        {
          tMs,
          title: entry.title,
          app: entry.app,
          pid: entry.pid,
          bounds: entry.bounds,
          windowId: entry.windowId,
        },
      ]),
    );
  }

  element(record: AxElementRecord): void {
    this.write('element', () =>
      insertAxRecords(this.lib.db, this.seq, [
        {
          tMs: record.tMs,
          kind: 'element',
          source: 'atspi',
          x: record.x,
          y: record.y,
          nodeCount: record.path.length,
          rootName: record.path[0]?.name ?? null,
          treeJson: JSON.stringify({
            app: record.app,
            isSecure: record.isSecure,
            path: record.path,
          }),
          note: record.isSecure ? 'secure' : null,
        },
      ]),
    );
  }

  snapshot(snapshot: AxSnapshot): void {
    this.write('snapshot', () =>
      insertAxRecords(this.lib.db, this.seq, [
        {
          tMs: snapshot.tMs,
          kind: 'window',
          source: 'atspi',
          x: null,
          y: null,
          nodeCount: snapshot.nodeCount,
          rootName: snapshot.root?.name ?? null,
          treeJson: JSON.stringify(snapshot.root),
          note: snapshot.truncated ? `truncated: ${snapshot.note ?? ''}` : (snapshot.note ?? null),
        },
      ]),
    );
  }

  mark(mark: SessionMark): void {
    this.write('mark', () =>
      insertMark(this.lib.db, this.seq, {
        tMs: mark.tMs,
        endMs: mark.endMs ?? null,
        kind: mark.kind,
        data: mark.data ?? {},
      }),
    );
  }

  endMark(kind: string, tMs: number, endMs: number): void {
    this.write('mark end', () => endOpenMarks(this.lib.db, this.seq, kind, tMs, endMs));
  }

  segmentStarted(index: number, segment: VideoSegment): void {
    this.write('segment', () => {
      const capture = getCapture(this.lib.db, this.seq) ?? {};
      const segments = Array.isArray(capture.segments) ? [...(capture.segments as unknown[])] : [];
      segments[index] = {
        path: `${this.relDir}/${path.basename(segment.path)}`,
        videoStartMs: segment.videoStart.monotonicMs,
        method: segment.videoStart.method,
        uncertaintyMs: segment.videoStart.uncertaintyMs,
        // the recorded display of this segment (a display change starts the next one)
        display: segment.display,
      };
      updateRecording(
        this.lib.db,
        this.seq,
        {
          capture: { ...capture, segments },
          ...(index === 0
            ? {
                videoStartMs: segment.videoStart.monotonicMs,
                videoStartMethod: segment.videoStart.method,
              }
            : {}),
        },
        Date.now(),
      );
    });
  }
}
