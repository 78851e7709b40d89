// End to end (issue 15 item 1): a GTK form recorded for real under Xvfb (xdotool clicks, typing,
// a scroll), then replayed with the real `cua-annotator replay` CLI (nut-js child, AT-SPI) into
// fresh instances of the form: the original, one with a step deleted in the edit log, one with
// its clicks shifted (a planted scale error), and one the user interrupts by moving the mouse.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport, Step } from '../../../src/shared/domain';
import { openLibrary } from '../../../src/services/library/library';
import { applyEdit } from '../../../src/services/edits/edit-service';
import { effectiveSteps } from '../../../src/services/steps';
import { getRecording } from '../../../src/store';
import { decodePng } from '../../../src/pipeline/media/png';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { launchGtkForm, type GtkForm } from '../../fixtures/apps/gtk-form';
import {
  readFormValues,
  recordGtkFormSession,
  type FormValues,
} from '../../fixtures/apps/gtk-form-session';
import { REPO_ROOT } from '../../helpers/paths';
import { runCli } from '../../helpers/cli';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('replay (Xvfb + GTK form + nut-js + AT-SPI)', () => {
  let desktop: Desktop;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-replay-'));
  const lib = path.join(root, 'lib');
  let id = '';
  let recordedValues: FormValues;
  let steps: Step[] = [];
  let form: GtkForm | null = null;

  const readValues = () => readFormValues(desktop);
  const xdo = (...args: string[]) => desktop.run('xdotool', args);

  // a copy of the recorded library, so each case has its own edit log
  const copyLibrary = (name: string): string => {
    const dir = path.join(root, name);
    fs.cpSync(lib, dir, { recursive: true });
    return dir;
  };

  // the reviewer works on another display: the replay drives the test desktop by --display
  const replay = (library: string, extra: string[] = []) =>
    runCli(
      [
        'replay',
        id,
        '--display',
        desktop.display,
        '--speed',
        '2',
        '--json',
        '--library',
        library,
        ...extra,
      ],
      { ...desktop.env, DISPLAY: ':12345' },
    );

  const freshForm = async () => {
    await form?.close();
    form = await launchGtkForm(desktop);
    await xdo('mousemove', '700', '700');
    await sleep(300);
  };

  beforeAll(async () => {
    desktop = await startDesktop();
    form = await launchGtkForm(desktop);
    const recorded = await recordGtkFormSession(desktop, form, lib);
    id = recorded.id;
    recordedValues = recorded.values;
    const l = openLibrary(lib);
    try {
      steps = effectiveSteps(l, getRecording(l.db, id).seq);
    } finally {
      l.close();
    }
  }, 120_000);

  afterAll(async () => {
    await form?.close();
    await desktop?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('recorded the form the way the replay needs it', () => {
    expect(recordedValues.name).toBe('hello');
    expect(recordedValues.selected).toHaveLength(1);
    expect(recordedValues.firstVisible).not.toBe('Item 1');
    expect(recordedValues.firstVisible).not.toBeNull();
    const kinds = steps.map((s) => s.calls.map((c) => c.name).join('+'));
    expect(kinds).toEqual(['click', 'write', 'moveTo+scroll', 'click', 'click']);
    expect(steps.map((s) => s.target?.title ?? null)).toEqual([
      'Name',
      null,
      null,
      recordedValues.selected[0],
      'Press Me',
    ]);
  });

  it('replays into a fresh form: same field values over AT-SPI, score 1 or close', async () => {
    await freshForm();
    const before = await readValues();
    expect(before.name).toBe('');
    const r = await replay(lib);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as ReplayReport;
    expect(report.stopped).toBeNull();
    // the stop hotkey was watched and the elements were read
    expect(report.warnings).toEqual([]);
    expect(report.steps).toHaveLength(steps.length + 1);
    expect(report.score).toBeGreaterThanOrEqual(0.9);
    expect(report.firstDivergent).toBeNull();
    // the clicks' elements were compared and matched
    const compared = report.steps.filter((s) => s.elementMatch !== null);
    expect(compared.length).toBeGreaterThanOrEqual(2);
    expect(compared.every((s) => s.elementMatch)).toBe(true);
    expect(await readValues()).toEqual(recordedValues);
  }, 90_000);

  it('a step deleted in the edit log: the first divergence is at that step', async () => {
    const library = copyLibrary('deleted');
    const scroll = steps.findIndex((s) => s.calls.some((c) => c.name === 'scroll'));
    expect(scroll).toBeGreaterThan(0);
    const l = openLibrary(library);
    try {
      applyEdit(l, id, { op: 'delete', stepId: steps[scroll]!.id });
    } finally {
      l.close();
    }
    await freshForm();
    const r = await replay(library);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as ReplayReport;
    // the step after the deleted scroll now has its index; its keyframe shows the scrolled list
    expect(report.firstDivergent).toBe(scroll);
    const first = report.steps[scroll]!;
    expect(first.ok).toBe(false);
    // the click lands on another row of the unscrolled list; the list looks different too
    expect(first.elementMatch).toBe(false);
    expect(first.liveElement?.title).not.toBe(first.recordedElement?.title);
    expect(first.screenDiff).toBeGreaterThan(0.005);
    expect(report.steps.slice(0, scroll).every((s) => s.ok)).toBe(true);
    // the divergent step's live screen is saved beside the report
    const l2 = openLibrary(library);
    try {
      const dir = l2.resolve(getRecording(l2.db, id).dir);
      const png = decodePng(fs.readFileSync(path.join(dir, first.screenshot!)));
      expect([png.width, png.height]).toEqual([report.screen.width, report.screen.height]);
      expect(fs.existsSync(path.join(dir, first.keyframe!))).toBe(true);
      expect(fs.existsSync(path.join(dir, 'replay', report.runId, 'report.json'))).toBe(true);
    } finally {
      l2.close();
    }
  }, 90_000);

  it('clicks shifted by a planted scale error fail at the first click', async () => {
    const library = copyLibrary('shifted');
    const l = openLibrary(library);
    try {
      for (const step of steps) {
        const call = step.calls[0]!;
        if (call.name !== 'click' || Array.isArray(call.args)) {
          continue;
        }
        const x = call.args.x as { float: number } | number;
        const y = call.args.y as { float: number } | number;
        const fx = typeof x === 'number' ? x : x.float;
        const fy = typeof y === 'number' ? y : y.float;
        applyEdit(l, id, {
          op: 'set-action',
          stepId: step.id,
          calls: [
            {
              name: 'click',
              args: { x: { float: Math.min(1, fx * 1.3) }, y: { float: Math.min(1, fy * 1.3) } },
            },
          ],
        });
      }
    } finally {
      l.close();
    }
    await freshForm();
    const r = await replay(library);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as ReplayReport;
    const firstClick = steps.findIndex((s) => s.calls[0]?.name === 'click');
    expect(report.firstDivergent).toBe(firstClick);
    expect(report.steps[firstClick]!.elementMatch).toBe(false);
    expect(report.score).toBeLessThan(0.8);
  }, 90_000);

  // starts a slow replay and resolves once it has typed into the entry (step 1 driven)
  const slowReplay = async () => {
    await freshForm();
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
        'replay',
        id,
        '--display',
        desktop.display,
        '--speed',
        '0.25',
        '--json',
        '--library',
        lib,
      ],
      { env: { ...desktop.env, DISPLAY: ':12345' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    for (let i = 0; i < 100; i++) {
      await sleep(200);
      if ((await readValues()).name === 'hello') {
        break;
      }
    }
    return {
      done: async () => ({ code: await exited, stdout, stderr }),
    };
  };

  it('stops when the user moves the mouse and reports where', async () => {
    const running = await slowReplay();
    for (let i = 0; i < 6; i++) {
      await xdo('mousemove', String(20 + i * 3), '20');
      await sleep(60);
    }
    const { code, stdout, stderr } = await running.done();
    expect(code, stderr).toBe(3);
    const report = JSON.parse(stdout) as ReplayReport;
    expect(report.stopped?.reason).toBe('user-input');
    expect(report.stopped?.pointer?.y).toBe(20);
    expect(report.stopped!.stepIndex).toBeGreaterThanOrEqual(1);
    expect(report.stopped!.stepIndex).toBeLessThan(steps.length);
    expect(report.firstDivergent).toBe(report.stopped!.stepIndex);
    // nothing after the stop was driven: no row was selected
    const after = await readValues();
    expect(after.selected).toEqual([]);
  }, 90_000);

  it('stops on the stop hotkey (ctrl+alt+shift+r) pressed on the replay display', async () => {
    const running = await slowReplay();
    await xdo('key', 'ctrl+alt+shift+r');
    const { code, stdout, stderr } = await running.done();
    expect(code, stderr).toBe(3);
    const report = JSON.parse(stdout) as ReplayReport;
    expect(report.stopped?.reason).toBe('hotkey');
    expect(report.stopped!.stepIndex).toBeLessThan(steps.length);
    expect(report.steps.length).toBeLessThanOrEqual(report.stopped!.stepIndex + 1);
    expect((await readValues()).selected).toEqual([]);
  }, 90_000);
});
