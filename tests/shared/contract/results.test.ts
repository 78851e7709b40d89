// Real results match their output schemas: the example recording imported into a real library,
// every method a reviewer uses called through the dispatcher, each answer (and every event it
// emitted) checked against the contract's schemas. A service that drifts from the contract (a
// renamed field, a status outside the domain list) fails here with the field's path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src/services/dispatch';
import {
  EVENT_VALIDATORS,
  validateMethodOutput,
  type ApiMethod,
  type ApiMethods,
} from '../../../src/shared/contract';
import { serviceContext } from '../../helpers/context';
import { exampleLibrary } from '../../helpers/example-library';

const t = await exampleLibrary();
const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-results-'));
const { ctx, services, events } = serviceContext(t.lib);
let id = '';

beforeAll(() => {
  id = t.id;
});
afterAll(async () => {
  await services.close();
  t.cleanup();
  fs.rmSync(outRoot, { recursive: true, force: true });
});

// Calls `method` and checks the answer against its output schema.
async function call<M extends ApiMethod>(
  method: M,
  payload: ApiMethods[M]['input'],
): Promise<ApiMethods[M]['output']> {
  const r = await dispatch(ctx, method, payload);
  if (!r.ok) {
    throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  }
  const checked = validateMethodOutput(method, r.value);
  expect(checked.ok ? null : checked, method).toBeNull();
  return r.value as ApiMethods[M]['output'];
}

describe('results of the services on the example recording', () => {
  it('match the output schema of each method', async () => {
    const list = await call('recordings:list', {});
    expect(list.items.map((r) => r.id)).toEqual([id]);
    const dto = await call('recordings:get', { id });
    expect(dto.steps.length).toBeGreaterThan(5);
    const [first, second] = dto.steps;
    await call('recordings:update-task', { id, task: 'Open the display settings' });
    await call('edits:apply', { id, edit: { op: 'relabel', stepId: first!.id, label: 'Open' } });
    await call('edits:apply', {
      id,
      edit: { op: 'insert', afterStepId: second!.id, kind: 'wait', seconds: 1 },
    });
    await call('edits:apply', { id, edit: { op: 'mark', stepId: first!.id, mark: 'correct' } });
    await call('edits:undo', { id });
    await call('edits:redo', { id });
    const labels = {
      taskCompleted: true,
      taskDifficulty: 3,
      alignmentScore: 9,
      efficiencyScore: 8,
    };
    await call('labels:save', { id, labels });
    const reviewed = await call('reviews:set-status', { id, status: 'needs-edit', comment: 'x' });
    expect(reviewed.reviews.length).toBe(1);
    await call('axtree:get', { id, stepId: first!.id });
    const checked = await call('recordings:check', { id });
    expect(checked.problems.length).toBeGreaterThan(0); // no keyframes computed yet
    await call('exports:run', { ids: [id], format: 'agentnet-raw', outDir: outRoot });
    await call('uploads:defaults', {});
    await call('uploads:list', {});
    expect(events.length).toBeGreaterThan(0);
    for (const [event, payload] of events) {
      const checked = EVENT_VALIDATORS[event](payload);
      expect(checked.ok ? null : checked, event).toBeNull();
    }
  });

  it('a drifted recording page fails its schema at the drifted field', async () => {
    const r = await dispatch(ctx, 'recordings:get', { id });
    const dto = r.ok ? (r.value as ApiMethods['recordings:get']['output']) : null;
    expect(dto).not.toBeNull();
    const drifts: [unknown, string][] = [
      [{ ...dto, status: 'done' }, 'result.status'],
      [{ ...dto, video: { ...dto!.video, fps: '30' } }, 'result.video.fps'],
      [
        { ...dto, steps: dto!.steps.map((s, i) => (i === 2 ? { ...s, keyframe: null } : s)) },
        'result.steps[2].keyframe',
      ],
      [
        {
          ...dto,
          eventCounts: { ...dto!.eventCounts, byKind: { ...dto!.eventCounts.byKind, drag: 1 } },
        },
        'result.eventCounts.byKind.drag',
      ],
    ];
    for (const [value, field] of drifts) {
      const checked = validateMethodOutput('recordings:get', value);
      expect(checked.ok ? null : checked.field).toBe(field);
    }
  });
});
