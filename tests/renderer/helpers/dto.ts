// Small RecordingDto/StepDto builders for renderer tests.
import type { RecordingDto, StepDto } from '../../../src/shared/contract';

/** A click step at screen pixel (x, y) of a 1366×768 screen. */
export function makeStep(id: string, index: number, over: Partial<StepDto> = {}): StepDto {
  return {
    id,
    index,
    kind: 'click',
    label: `step ${id}`,
    description: '',
    calls: [{ name: 'click', args: { x: { float: 0.5 }, y: { float: 0.25 } } }],
    code: 'pyautogui.click(x=0.5, y=0.25)',
    startMs: 1000 * (index + 1),
    endMs: 1000 * (index + 1) + 100,
    coordinate: { x: 683, y: 192 },
    preMove: null,
    keyframeMs: null,
    keyframeUrl: null,
    element: null,
    windowTitle: null,
    mark: null,
    isEdited: false,
    diagnostics: [],
    overlay: {},
    ...over,
  };
}

/** A recording with `n` click steps (ids s0…s{n-1}). */
export function makeRecording(n: number, over: Partial<RecordingDto> = {}): RecordingDto {
  return {
    id: 'rec-1',
    task: 'Open the settings',
    description: '',
    status: 'complete',
    reviewStatus: 'draft',
    source: 'agentnet-import',
    platform: {
      os: 'win32',
      system: 'Windows',
      release: '10',
      version: '10.0',
      machine: 'AMD64',
      model: null,
    },
    screen: { width: 1366, height: 768, scale: 1, monitors: [] },
    createdAtMs: 1_700_000_000_000,
    durationMs: 60_000,
    eventCounts: {
      total: 0,
      move: 0,
      button: 0,
      scroll: 0,
      key: 0,
      other: 0,
      byKind: { move: 0, down: 0, up: 0, wheel: 0, keydown: 0, keyup: 0, other: 0 },
    },
    video: {
      url: '/media/rec-1/video',
      width: 1276,
      height: 718,
      fps: 30,
      durationMs: 60_000,
      startMs: 500,
    },
    trim: { startMs: null, endMs: null },
    steps: Array.from({ length: n }, (_, i) => makeStep(`s${i}`, i)),
    labels: {
      taskCompleted: null,
      taskDifficulty: null,
      alignmentScore: null,
      efficiencyScore: null,
    },
    reviews: [],
    editVersion: 0,
    canUndo: false,
    canRedo: false,
    skippedEdits: [],
    ...over,
  };
}
