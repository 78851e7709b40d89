import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import { exportSelectors, useExportStore } from '../../../src/renderer/store/export';
import { FakeFailure, installFakeApi } from '../helpers/fake-api';

const state = () => useExportStore.getState();

describe('useExportStore', () => {
  it('runs an export and follows its progress events', async () => {
    const api = installFakeApi();
    let seenDuringRun: number | null = null;
    api.on('exports:run', (p) => {
      // progress arrives while the call runs
      state().onProgress({ done: 1, total: 2, recordingId: 'a', phase: 'keyframes' });
      seenDuringRun = exportSelectors.fraction(state());
      state().onProgress({ done: 1, total: 2, recordingId: 'other', phase: 'x' });
      const { ids, outDir } = p as { ids: string[]; outDir: string };
      return {
        outDir,
        recordings: ids.map((id) => ({
          id,
          episodeId: `ep-${id}`,
          outputs: [`${id}.json`, 'img.png'],
          warnings: [],
        })),
      };
    });
    state().prepare(['a', 'b']);
    expect(exportSelectors.canStart(state())).toBe(false);
    state().setOutDir('/tmp/out');
    state().setFormat('agentnet-jsonl');
    expect(exportSelectors.canStart(state())).toBe(true);
    await state().run();
    expect(seenDuringRun).toBe(0.5);
    expect(state().status).toBe('done');
    expect(exportSelectors.outputCount(state())).toBe(4);
    expect(exportSelectors.fraction(state())).toBe(1);
    expect(api.calls[0]).toEqual({
      method: 'exports:run',
      payload: { ids: ['a', 'b'], format: 'agentnet-jsonl', outDir: '/tmp/out' },
    });
    // the next dialog keeps format and folder
    state().prepare(['c']);
    expect([state().format, state().outDir, state().status]).toEqual([
      'agentnet-jsonl',
      '/tmp/out',
      'idle',
    ]);
  });

  it('shows a refused export', async () => {
    const api = installFakeApi();
    api.on('exports:run', () => {
      throw new FakeFailure('EXPORT_TARGET_EXISTS', '/tmp/out/ep.json already exists');
    });
    state().prepare(['a']);
    state().setOutDir('/tmp/out');
    await state().run();
    expect(state().status).toBe('error');
    expect(state().error).toBe('/tmp/out/ep.json already exists');
  });
});
