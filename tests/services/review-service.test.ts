// Review/edit services on the real fixture in a real library: edits survive a reload, the raw
// layer never changes, every export applies the edits, keyframes are computed and go stale when
// their step changes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingDto } from '../../src/shared/contract';
import { isAppError } from '../../src/shared/errors';
import { decodePng } from '../../src/pipeline/media/png';
import { applyEdit, redoNextEdit, undoLastEdit } from '../../src/services/edits/edit-service';
import { exportRecordings } from '../../src/services/export/export-service';
import { openLibrary, type Library } from '../../src/services/library/library';
import { resolveMedia } from '../../src/services/media';
import { computeKeyframes } from '../../src/services/keyframes/keyframes';
import {
  getRecordingDto,
  getStepAxTree,
  listRecordingsPage,
  saveRecordingLabels,
  setReviewStatus,
  updateRecordingTask,
} from '../../src/services/review-service';
import { getRecording, listEdits, listSteps, readEvents } from '../../src/store';
import { exampleLibrary } from '../helpers/example-library';
import { readJsonl } from '../helpers/jsonl';
import { GOLDEN_ROWS } from '../pipeline/keyframes/golden';

const OPTS = { appVersion: '0.0.0-test' };
const CTX = {
  mediaUrl: (id: string, kind: string, name?: string) => `/media/${id}/${kind}/${name ?? ''}`,
};
const FIXTURE_IDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 21, 22].map((n) => `agentnet:${n}`);
const t = await exampleLibrary({ keyframes: false });
const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-review-'));
let lib: Library = t.lib;
let id = '';
let seq = 0;
let eventsBefore = '';
let rawEventsExportBefore = '';

function dto(): RecordingDto {
  return getRecordingDto(lib, id, CTX);
}

beforeAll(async () => {
  id = t.id;
  seq = getRecording(lib.db, id).seq;
  eventsBefore = JSON.stringify(readEvents(lib.db, seq));
  const out = path.join(outRoot, 'raw-before');
  await exportRecordings(lib, [id], { ...OPTS, format: 'agentnet-raw', outDir: out });
  rawEventsExportBefore = fs.readFileSync(
    path.join(out, 'win10-display-settings', 'events.jsonl'),
    'utf8',
  );
});
afterAll(() => {
  t.cleanup();
  fs.rmSync(outRoot, { recursive: true, force: true });
});

describe('review service on the fixture', () => {
  it('builds the recording page: steps, element, window, overlays, video', () => {
    const d = dto();
    expect(d.steps.map((s) => s.id)).toEqual(FIXTURE_IDS);
    expect(d.steps.every((s) => !s.isEdited && s.keyframeUrl === null)).toBe(true);
    const [first] = d.steps;
    expect(first?.code).toBe('pyautogui.click(x=0.9722, y=0.9701)');
    expect(first?.element).toEqual([
      { role: 'ButtonControl', name: 'Action Centre, No new notifications (Off)' },
    ]);
    expect(first?.windowTitle).toBe('explorer');
    const drag = d.steps[3]!;
    expect(drag.kind).toBe('dragTo');
    expect(drag.overlay.dragPath?.[0]).toEqual([621, 206]);
    expect(drag.overlay.dragPath?.at(-1)).toEqual([561, 213]);
    expect(d.steps[5]?.overlay).toEqual({ scroll: { dx: 0, dy: -3 } });
    expect(d.video).toMatchObject({
      width: 1276,
      height: 718,
      fps: 30,
      url: `/media/${id}/video/`,
    });
    expect(d.eventCounts.total).toBe(4099);
    expect([d.editVersion, d.canUndo, d.canRedo, d.skippedEdits]).toEqual([0, false, false, []]);
  });

  it('relabel, delete, undo the delete, merge, delete: undo state along the way', () => {
    applyEdit(lib, id, { op: 'relabel', stepId: 'agentnet:0', label: 'Open the Action Centre' });
    applyEdit(lib, id, { op: 'delete', stepId: 'agentnet:8' });
    expect(dto().steps.map((s) => s.id)).not.toContain('agentnet:8');
    undoLastEdit(lib, id);
    let d = dto();
    expect(d.steps.map((s) => s.id)).toContain('agentnet:8');
    expect([d.canUndo, d.canRedo]).toEqual([true, true]);
    applyEdit(lib, id, { op: 'merge', stepIds: ['agentnet:6', 'agentnet:7'] });
    d = dto();
    // the new edit dropped the redo tail
    expect([d.canUndo, d.canRedo]).toEqual([true, false]);
    expect(() => redoNextEdit(lib, id)).toThrow(/no undone edit to redo/);
    applyEdit(lib, id, { op: 'delete', stepId: 'agentnet:9' });
    d = dto();
    expect(d.steps.map((s) => s.id)).toEqual(
      FIXTURE_IDS.filter((s) => s !== 'agentnet:7' && s !== 'agentnet:9'),
    );
    const merged = d.steps[6]!;
    expect(merged.code).toBe(
      'pyautogui.click(x=0.4114, y=0.3607)\npyautogui.click(x=0.3982, y=0.4115)',
    );
    expect([merged.isEdited, merged.startMs, merged.endMs]).toEqual([
      true,
      30703710.3494,
      30707548.8574,
    ]);
    expect(d.steps[0]).toMatchObject({ label: 'Open the Action Centre', isEdited: true });
  });

  it('refuses an edit that does not fit the current steps and stores nothing', () => {
    const before = listEdits(lib.db, seq).length;
    let caught: unknown;
    try {
      applyEdit(lib, id, { op: 'merge', stepIds: ['agentnet:0', 'agentnet:2'] });
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'EDIT_INVALID')).toBe(true);
    expect((caught as Error).message).toMatch(
      /step agentnet:2 does not directly follow step agentnet:0/,
    );
    expect(() => applyEdit(lib, id, { op: 'delete', stepId: 'agentnet:9' })).toThrow(
      /agentnet:9 does not exist/,
    );
    expect(listEdits(lib.db, seq)).toHaveLength(before);
  });

  it('after re-opening the library the edits are there and the raw layer is unchanged', () => {
    const stepsBefore = dto().steps;
    lib.close();
    lib = openLibrary(t.dir);
    t.lib = lib;
    expect(dto().steps).toEqual(stepsBefore);
    expect(listEdits(lib.db, seq).map((e) => [e.edit.op, e.state])).toEqual([
      ['relabel', 'active'],
      ['delete', 'discarded'],
      ['merge', 'active'],
      ['delete', 'active'],
    ]);
    expect(JSON.stringify(readEvents(lib.db, seq))).toBe(eventsBefore);
    // the reduced steps themselves are untouched: the edits live in their own log
    expect(listSteps(lib.db, seq).map((s) => [s.id, s.label])[0]).toEqual([
      'agentnet:0',
      'Click on Action Centre',
    ]);
    expect(listSteps(lib.db, seq)).toHaveLength(14);
  });

  it('agentnet-raw export applies the relabel, merge and delete; events stay byte-identical', async () => {
    const out = path.join(outRoot, 'raw-after');
    const [r] = await exportRecordings(lib, [id], { ...OPTS, format: 'agentnet-raw', outDir: out });
    const folder = path.join(out, 'win10-display-settings');
    const vis = readJsonl(path.join(folder, 'reduced_events_vis.jsonl'));
    const complete = readJsonl(path.join(folder, 'reduced_events_complete.jsonl'));
    expect(vis).toHaveLength(complete.length);
    expect(vis[0]?.action).toBe('Open the Action Centre');
    // 7 merged into 6 (two clicks have no AgentNet description: skipped, with a warning), 9 deleted
    expect(complete.map((c) => c.id)).toEqual([0, 1, 2, 3, 4, 5, 8, 10, 20, 21, 22]);
    expect(r?.warnings).toEqual([
      'step agentnet:6: AGENTNET_UNREPRESENTABLE_STEP: click has no AgentNet description',
    ]);
    expect(fs.readFileSync(path.join(folder, 'events.jsonl'), 'utf8')).toBe(rawEventsExportBefore);
  });

  it('standardized export applies the relabel, merge and delete', async () => {
    const out = path.join(outRoot, 'std-after');
    await exportRecordings(lib, [id], { ...OPTS, format: 'standardized', outDir: out });
    const traj = JSON.parse(fs.readFileSync(path.join(out, 'win10-display-settings.json'), 'utf8'));
    const steps = (traj.content as Record<string, unknown>[]).filter((c) => 'guiactions' in c);
    const labels = listSteps(lib.db, seq).map((s) => s.label);
    // instructions: the edited steps' labels, 7 and 9 gone, terminate appended
    expect(steps.map((s) => s.instruction)).toEqual([
      'Open the Action Centre',
      ...labels.slice(1, 7),
      labels[8],
      labels[10],
      ...labels.slice(11),
      'terminate',
    ]);
    expect((steps[6]?.guiactions as unknown[]).length).toBe(2);
  }, 120_000); // decodes the keyframes: slow on a loaded machine

  it('computes keyframes (the golden frames), serves them, and shows stale ones as absent', async () => {
    const result = await computeKeyframes(lib, id);
    expect(result.steps).toBe(12);
    let d = dto();
    const originalIndex = (stepId: string) => FIXTURE_IDS.indexOf(stepId);
    for (const s of d.steps) {
      const golden = GOLDEN_ROWS.find((g) => g.step === originalIndex(s.id));
      expect(s.keyframeUrl, s.id).toBe(
        `/media/${id}/keyframe/frame-${String(golden?.frame).padStart(6, '0')}.png`,
      );
      expect(s.keyframeMs).toBeGreaterThan(d.video!.startMs);
    }
    const name = path.posix.basename(d.steps[0]!.keyframeUrl!);
    const file = resolveMedia(lib, id, 'keyframe', name);
    expect(file).not.toBeNull();
    const png = decodePng(fs.readFileSync(file!));
    expect([png.width, png.height]).toEqual([1276, 718]);
    // changing a step's action changes its keyframe search: its keyframe is stale until recomputed
    applyEdit(lib, id, {
      op: 'set-action',
      stepId: 'agentnet:1',
      calls: [{ name: 'write', args: { message: 'night light' } }],
    });
    d = dto();
    expect(d.steps[1]?.keyframeUrl).toBeNull();
    expect(d.steps[2]?.keyframeUrl).not.toBeNull();
    undoLastEdit(lib, id);
    expect(dto().steps[1]?.keyframeUrl).not.toBeNull();
    // nothing staged is left beside the keyframes
    const folder = path.join(t.dir, 'recordings', id);
    expect(fs.readdirSync(folder).filter((f) => f.startsWith('.'))).toEqual([]);
  }, 120_000); // ffmpeg decodes: slow on a loaded machine

  it('task text, labels and reviews land in the page data and the library list', () => {
    updateRecordingTask(lib, id, { description: 'edited description' });
    saveRecordingLabels(lib, id, {
      taskCompleted: true,
      taskDifficulty: 4,
      alignmentScore: 8,
      efficiencyScore: 7,
    });
    setReviewStatus(lib, id, { status: 'needs-edit', reviewer: 'rev', comment: 'step 3?' }, 123);
    const d = dto();
    expect(d.description).toBe('edited description');
    expect(d.labels).toEqual({
      taskCompleted: true,
      taskDifficulty: 4,
      alignmentScore: 8,
      efficiencyScore: 7,
    });
    expect(d.reviewStatus).toBe('needs-edit');
    expect(d.reviews).toEqual([
      { atMs: 123, reviewer: 'rev', status: 'needs-edit', grade: null, comment: 'step 3?' },
    ]);
    const page = listRecordingsPage(lib, { reviewStatus: 'needs-edit', search: 'edited desc' });
    expect(page.items.map((r) => r.id)).toEqual([id]);
    expect(() => updateRecordingTask(lib, id, { task: '  ' })).toThrow(/blank/);
  });

  it('axtree:get gives the window snapshot at the step and its element', () => {
    const ax = getStepAxTree(lib, id, 'agentnet:0');
    expect(ax.tMs).toBeLessThanOrEqual(30680627.0419);
    expect((ax.tree as { Name: string }).Name).toBe('Taskbar');
    expect((ax.element as { Name: string }).Name).toBe('Action Centre, No new notifications (Off)');
    expect(() => getStepAxTree(lib, id, 'agentnet:9')).toThrow(/no step agentnet:9/);
  });
});
