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
          outputs: [`${id}.json`, 'images'],
          files: 2,
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

describe('issue 10 item 24: the export dialog tells UI users what happened', () => {
  it('item 24: counts every file written, offers Overwrite, names steps by number', async () => {
    const api = installFakeApi();
    api.on('exports:run', (p) => {
      const { outDir, overwrite } = p as { outDir: string; overwrite?: boolean };
      if (!overwrite) {
        throw new FakeFailure(
          'EXPORT_TARGET_EXISTS',
          `${outDir}/ep already exists; choose another --out or pass --overwrite.`,
          { path: `${outDir}/ep` },
        );
      }
      return {
        outDir,
        skipped: [],
        recordings: [
          {
            id: 'a',
            episodeId: 'ep',
            outputs: ['ep'],
            files: 9,
            warnings: ['step agentnet:3: NO_FRAME: no frame before the click'],
          },
        ],
      };
    });
    api.on('recordings:get', () => ({
      steps: [
        { id: 'agentnet:1', label: 'Open Start', description: 'click' },
        { id: 'agentnet:3', label: '', description: 'Click on Display' },
      ],
    }));
    state().prepare(['a']);
    state().setOutDir('/tmp/out');
    await state().run();
    // the refusal speaks to the dialog, not the command line, and offers to overwrite
    expect(state().status).toBe('error');
    expect(state().error).not.toMatch(/--/);
    expect(state().existingPath).toBe('/tmp/out/ep');
    state().setOverwrite(true);
    await state().run();
    expect(api.calls.at(-2)?.payload).toMatchObject({ overwrite: true });
    expect(state().status).toBe('done');
    expect(exportSelectors.outputCount(state())).toBe(9);
    expect(exportSelectors.outputNames(state())).toEqual(['ep']);
    expect(exportSelectors.warnings(state())).toEqual([
      'Step 2 · Click on Display: NO_FRAME: no frame before the click',
    ]);
  });
});
