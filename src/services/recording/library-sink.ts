// The recorder's sink on top of the library: every batch is committed in its own transaction,
// so a killed recorder loses at most the batch in flight (≤ 100 ms of input).
import path from 'node:path';
import type { AxElementRecord, AxSnapshot } from '../../axtree/model';
import type { InputEvent } from '../../recorder/input/normalize-input-event';
import type { RecordingSink, SessionMark, VideoSegment } from '../../recorder/session';
import type { ActiveWindowEntry } from '../../recorder/windows/active-window';
import {
  endOpenMarks,
  getCapture,
  insertAxRecords,
  insertEvents,
  insertMark,
  insertWindows,
  updateRecording,
} from '../../store';
import type { Library } from '../library/library';

/** A sink writing one recording's streams into the library. */
export class LibrarySink implements RecordingSink {
  private nextIdx = 0;
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
  }

  window(entry: ActiveWindowEntry): void {
    this.write('window', () =>
      insertWindows(this.lib.db, this.seq, [
        {
          tMs: entry.tMs,
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
