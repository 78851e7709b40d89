// A version's dashboard summary (src/hub/review/version-summary.ts) from a bundle's manifest,
// steps/steps.json and raw/recording.json, read through the store interface.
import { describe, expect, it } from 'vitest';
import type { HubObjectStore } from '../../../src/hub/storage';
import { summarize, summarizeBundle } from '../../../src/hub/review/version-summary';
import type { SubmissionManifest } from '../../../src/services/upload/manifest';

const platform = {
  os: 'win32',
  system: 'Windows',
  release: '11',
  version: '',
  machine: 'x64',
  model: null,
};
const file = (path: string, role: SubmissionManifest['files'][number]['role']) => ({
  path,
  role,
  sizeBytes: 1,
  sha256: '0'.repeat(64),
});

// a store holding `objects` (key → text), answering stat and get only
function memoryStore(objects: Record<string, string>): HubObjectStore {
  return {
    stat: (key: string) =>
      Promise.resolve(key in objects ? { key, sizeBytes: Buffer.byteLength(objects[key]!) } : null),
    // `for await` reads a plain array too
    get: (key: string) => Promise.resolve([Buffer.from(objects[key]!)]),
  } as unknown as HubObjectStore;
}

describe('version summary', () => {
  it('counts steps by kind, sums the videos, counts keyframe files, takes the OS', async () => {
    const manifest = {
      platform,
      stepCount: 99,
      files: [
        file('steps/steps.json', 'steps'),
        file('raw/recording.json', 'recording'),
        file('keyframes/1.png', 'keyframe'),
        file('keyframes/2.png', 'keyframe'),
        file('video/a.mp4', 'video'),
      ],
    } as SubmissionManifest;
    const store = memoryStore({
      'p/steps/steps.json': JSON.stringify([
        { kind: 'click' },
        { kind: 'click' },
        { kind: 'write' },
        { kind: 'hotkey' },
        { kind: 'x'.repeat(5000) },
        { kind: 'constructor' },
        { kind: 7 },
      ]),
      'p/raw/recording.json': JSON.stringify({
        videos: [{ durationMs: 61_000 }, { durationMs: 500 }],
      }),
    });
    expect(await summarizeBundle(store, 'p', manifest)).toEqual({
      os: 'win32',
      stepCount: 7,
      // kinds the contract does not know (a long one, a prototype name, a number): 'unknown'
      actionCounts: { click: 2, write: 1, hotkey: 1, unknown: 3 },
      videoMs: 61_500,
      keyframeCount: 2,
    });
  });

  it('falls back to the manifest step count when the steps file is missing or not JSON', async () => {
    const manifest = { platform, stepCount: 7, files: [file('steps/steps.json', 'steps')] };
    expect(summarize(manifest as SubmissionManifest, undefined, undefined)).toEqual({
      os: 'win32',
      stepCount: 7,
      actionCounts: {},
      videoMs: 0,
      keyframeCount: 0,
    });
    const bad = memoryStore({ 'p/steps/steps.json': '{not json' });
    expect((await summarizeBundle(bad, 'p', manifest as SubmissionManifest)).stepCount).toBe(7);
  });
});
