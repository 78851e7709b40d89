// Issue 10, item 25 (AgentNet raw export of our own recordings) and item 23 (step labels name the
// captured element). A recording made with AT-SPI data, built with the store API, a real video
// made by ffmpeg, reduced and exported by the real services.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit } from '../../src/services/edits/edit-service';
import { exportRecordings } from '../../src/services/export/export-service';
import { reduceRecording } from '../../src/services/reduce-service';
import { effectiveSteps } from '../../src/services/steps';
import { runCommand } from '../../src/infra/run-command';
import { insertAxRecords, insertEvents, insertVideo, listSteps } from '../../src/store';
import { tempLibrary } from '../helpers/library';
import { readJsonl } from '../helpers/jsonl';
import { makeRecording } from '../helpers/store';
import { EventScript } from '../pipeline/reduce/event-script';

const OPTS = { appVersion: '0.0.0-test' };
const FPS = 30;
const FRAMES = 360;
const VIDEO_START_MS = 1000;
const STARTED_AT = '2026-12-01T13:44:37.003Z';

type Bounds = { x: number; y: number; width: number; height: number };
const node = (role: string, name: string, bounds: Bounds | null, children: unknown[] = []) => ({
  role,
  name,
  states: ['enabled', 'showing'],
  bounds,
  children,
});
const FRAME = node('frame', 'Editor', { x: 0, y: 0, width: 1280, height: 800 });
const PANEL = node('panel', '', { x: 0, y: 60, width: 1280, height: 740 });
const APP = node('application', 'gedit', null);
const SEARCH = node('text', 'Search', { x: 250, y: 190, width: 200, height: 24 });
const SAVE = node('push button', 'Save', { x: 80, y: 90, width: 60, height: 24 });
const REPORT = node('list item', 'report.txt', { x: 350, y: 290, width: 300, height: 20 });
const WINDOW_TREE = { ...FRAME, children: [{ ...PANEL, children: [SEARCH, SAVE, REPORT] }] };

const lib = tempLibrary();
const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-agentnet-export-'));
let recId = '';
let seq = 0;

// Clicks on the search field, types into it, clicks Save, double-clicks a list item; an element
// record per press (queried 4 ms after it, at the press position) and one window tree.
function record(): void {
  const s = new EventScript(2_000);
  const presses: { tMs: number; x: number; y: number; element: unknown }[] = [];
  const press = (x: number, y: number, element: unknown, count = 1) => {
    s.moveTo(x, y, 5);
    for (let i = 0; i < count; i += 1) {
      presses.push({ tMs: s.now, x, y, element });
      s.click();
      s.wait(60);
    }
  };
  press(300, 200, SEARCH);
  s.wait(300).type('hello');
  s.wait(3_000);
  press(100, 100, SAVE);
  s.wait(3_000);
  press(400, 300, REPORT, 2);
  insertEvents(lib.lib.db, seq, s.events);
  insertAxRecords(lib.lib.db, seq, [
    {
      tMs: 1_500,
      kind: 'window',
      source: 'atspi',
      x: null,
      y: null,
      nodeCount: 6,
      rootName: 'Editor',
      treeJson: JSON.stringify(WINDOW_TREE),
      note: null,
    },
    ...presses.map((p) => ({
      tMs: p.tMs + 4,
      kind: 'element' as const,
      source: 'atspi',
      x: p.x,
      y: p.y,
      nodeCount: 4,
      rootName: (p.element as { name: string }).name,
      treeJson: JSON.stringify({
        app: 'gedit',
        isSecure: false,
        path: [p.element, PANEL, FRAME, APP],
      }),
      note: null,
    })),
  ]);
}

beforeAll(async () => {
  const rec = makeRecording(lib.lib.db, {
    startedAt: STARTED_AT,
    stoppedAt: '2026-12-01T13:44:49.500Z',
    videoStartMs: VIDEO_START_MS,
  });
  recId = rec.id;
  seq = rec.seq;
  const videoRel = `recordings/${rec.id}/screen.mp4`;
  const videoPath = lib.lib.resolve(videoRel);
  fs.mkdirSync(path.dirname(videoPath), { recursive: true });
  // every frame differs from its neighbours (moving test pattern), so a frame can be identified
  const made = await runCommand(
    'ffmpeg',
    [
      ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-f', 'lavfi'],
      ...['-i', `testsrc2=size=160x100:rate=${FPS}:duration=${FRAMES / FPS}`],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-y', videoPath],
    ],
    { timeoutMs: 60_000 },
  );
  expect(made.code, made.stderr).toBe(0);
  insertVideo(lib.lib.db, rec.seq, 0, {
    path: videoRel,
    width: 160,
    height: 100,
    fps: FPS,
    frameCount: FRAMES,
    durationMs: (FRAMES / FPS) * 1000,
    startMs: VIDEO_START_MS,
    startMethod: 'test',
    codec: 'h264',
    sizeBytes: fs.statSync(videoPath).size,
    sha256: null,
  });
  record();
  reduceRecording(lib.lib, recId);
});

afterAll(() => {
  lib.cleanup();
  fs.rmSync(outRoot, { recursive: true, force: true });
});

async function exportRaw(name: string): Promise<string> {
  const out = path.join(outRoot, name);
  const [done] = await exportRecordings(lib.lib, [recId], {
    ...OPTS,
    format: 'agentnet-raw',
    outDir: out,
  });
  return path.join(out, done!.episodeId);
}

// Every key of every object in a JSON value (to prove no AT-SPI field name is left).
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    value.forEach((v) => keysOf(v, out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  }
  return out;
}

// One frame as 32×20 gray bytes.
async function grayFrame(file: string, index: number): Promise<Buffer> {
  const gray = path.join(outRoot, `${path.basename(file)}-${index}.gray`);
  const r = await runCommand(
    'ffmpeg',
    [
      ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', file],
      ...['-vf', `select=eq(n\\,${index}),scale=32:20,format=gray`, '-frames:v', '1'],
      ...['-f', 'rawvideo', '-y', gray],
    ],
    { timeoutMs: 60_000 },
  );
  expect(r.code, r.stderr).toBe(0);
  return fs.readFileSync(gray);
}

async function frameCount(file: string): Promise<number> {
  const r = await runCommand(
    'ffprobe',
    [
      ...['-v', 'error', '-select_streams', 'v:0', '-count_frames'],
      ...['-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file],
    ],
    { timeoutMs: 60_000 },
  );
  return Number(r.stdout.trim());
}

function distance(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  }
  return sum;
}

describe('issue 10: AgentNet raw export of our own recordings', () => {
  it('item 25: metadata start_time/stop_time are AgentNet wall-clock strings, not ISO', async () => {
    const folder = await exportRaw('times');
    const metadata = JSON.parse(fs.readFileSync(path.join(folder, 'metadata.json'), 'utf8'));
    const local = (iso: string) => {
      const d = new Date(iso);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    };
    expect(metadata.start_time).toBe(local(STARTED_AT));
    expect(metadata.stop_time).toBe(local('2026-12-01T13:44:49.500Z'));
    expect(metadata.start_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('item 25: targets, window trees and element/a11y files reach the export in AgentNet shape', async () => {
    const folder = await exportRaw('shapes');
    const complete = readJsonl(path.join(folder, 'reduced_events_complete.jsonl'));
    const vis = readJsonl(path.join(folder, 'reduced_events_vis.jsonl'));
    const clicks = complete.filter((r) => r.action === 'click');
    expect(clicks.map((r) => r.target)).toEqual([
      { control_type: 'EditControl', title: 'Search', mark: true },
      { control_type: 'ButtonControl', title: 'Save', mark: true },
      { control_type: 'ListItemControl', title: 'report.txt', mark: true },
    ]);
    expect(vis.map((r) => r.target)).toEqual(complete.map((r) => r.target ?? { mark: false }));
    // every row carries the window tree before it, in row form (rectangles with x, y, w, h)
    for (const row of [...complete, ...vis]) {
      const tree = row.axtree as Record<string, unknown>;
      expect(tree.Name).toBe('Editor');
      expect(tree.ControlType).toBe('WindowControl');
      expect(tree.BoundingRectangle).toEqual({
        left: 0,
        top: 0,
        right: 1280,
        bottom: 800,
        x: 0,
        y: 0,
        w: 1280,
        h: 800,
      });
    }
    const [a11y] = readJsonl(path.join(folder, 'a11y.jsonl'));
    const root = a11y!.axtree as Record<string, unknown>;
    expect([root.Name, root.ControlType, root.complete, root.switched, root.closed]).toEqual([
      'Editor',
      'WindowControl',
      true,
      false,
      false,
    ]);
    const elements = readJsonl(path.join(folder, 'element.jsonl'));
    expect(elements).toHaveLength(4);
    const save = elements[1]!.a11y_tree as Record<string, unknown>;
    expect([save.Name, save.ControlType, save.BoundingRectangle, save.Depth]).toEqual([
      'Save',
      'ButtonControl',
      { left: 80, top: 90, right: 140, bottom: 114 },
      0,
    ]);
    // no AT-SPI field name left where AgentNet's consumers look
    const keys = keysOf([a11y, ...elements]);
    for (const atspiKey of ['role', 'name', 'bounds', 'children', 'width', 'height']) {
      expect(keys.has(atspiKey), atspiKey).toBe(false);
    }
  });

  it('item 23: recorded steps are labelled with the captured element (name and role)', async () => {
    expect(listSteps(lib.lib.db, seq).map((s) => s.label)).toEqual([
      'Click on Search text field',
      'Type "hello" in Search text field',
      'Click on Save button',
      'Double-click on report.txt list item',
    ]);
    const folder = await exportRaw('labels');
    const vis = readJsonl(path.join(folder, 'reduced_events_vis.jsonl'));
    expect(vis[2]!.action).toBe('Click on Save button');
  });

  it('item 25: a trimmed recording exports only the kept range (events, steps, video cut)', async () => {
    // keep from 5 s to 8 s on the recording clock: only the Save click starts inside
    applyEdit(lib.lib, recId, { op: 'trim', startMs: 5_000, endMs: 8_000 });
    const kept = effectiveSteps(lib.lib, seq);
    expect(kept.map((s) => [s.kind, s.coordinate])).toEqual([['click', { x: 100, y: 100 }]]);
    const folder = await exportRaw('trimmed');
    const metadata = JSON.parse(fs.readFileSync(path.join(folder, 'metadata.json'), 'utf8'));
    // frame 120 of the source is at 1 s + 120/30 s = 5 s: the cut's frame 0
    expect(metadata.video_start_timestamp).toBe(5);
    const events = readJsonl(path.join(folder, 'events.jsonl'));
    const times = events.map((e) => e.time_stamp as number);
    expect(events.length).toBeGreaterThan(0);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...times)).toBeLessThanOrEqual(Math.max(8, kept[0]!.endMs / 1000));
    expect(events.map((e) => e.event_idx)).toEqual(events.map((_, i) => i));
    const complete = readJsonl(path.join(folder, 'reduced_events_complete.jsonl'));
    expect(complete).toHaveLength(1);
    // the row's first event is the exported row of its press
    const row = complete[0]!;
    const first = events[row.event_start_idx as number]!;
    expect([first.action, first.time_stamp]).toEqual(['click', row.start_time]);
    // the video is cut to the kept frames: frames [120, 211) of the source
    const mp4s = fs.readdirSync(folder).filter((f) => f.endsWith('.mp4'));
    expect(mp4s).toEqual(['video.mp4']);
    const cut = path.join(folder, 'video.mp4');
    expect(await frameCount(cut)).toBe(91);
    const source = lib.lib.resolve(`recordings/${recId}/screen.mp4`);
    const cut0 = await grayFrame(cut, 0);
    const d: number[] = [];
    for (const n of [119, 120, 121]) {
      d.push(distance(cut0, await grayFrame(source, n)));
    }
    expect(d.indexOf(Math.min(...d)), `distances ${d.join(', ')}`).toBe(1);
  });
  it('item 25: standardized export of a trimmed recording takes its frames from the cut video', async () => {
    // runs after the trim above: one kept step + terminate, decoded from the kept frames only
    const out = path.join(outRoot, 'trimmed-std');
    const [done] = await exportRecordings(lib.lib, [recId], {
      ...OPTS,
      format: 'standardized',
      outDir: out,
    });
    expect(done!.warnings).toEqual([]);
    expect(fs.readdirSync(path.join(out, 'images')).sort()).toEqual([
      `${done!.episodeId}_0.png`,
      `${done!.episodeId}_1.png`,
    ]);
    // the temporary cut is gone with the staging folder
    expect(fs.readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
  });
});
