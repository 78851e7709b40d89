// The export format registry (src/services/export/formats.ts): one entry per domain format with
// its outputs, shared file and folders and whether it needs keyframe images; an unknown format is
// refused with the contract's wording before anything is read or written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExport } from '../../../src/services/export/export-service';
import { loadForExport } from '../../../src/services/export/export-load';
import { EXPORT_FORMAT_REGISTRY, exportFormatOf } from '../../../src/services/export/formats';
import { BUNDLE_FORMATS } from '../../../src/services/upload/bundle';
import { EXPORT_FORMATS, type ExportFormat } from '../../../src/shared/domain';
import { AppError } from '../../../src/shared/errors';
import { tempLibrary } from '../../helpers/library';
import { makeRecording } from '../../helpers/store';

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-export-formats-'));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

const UNKNOWN = `format must be one of ${EXPORT_FORMATS.join(', ')}, got "zip"`;

describe('export format registry', () => {
  it('has exactly the domain formats, each under its own name', () => {
    expect(Object.keys(EXPORT_FORMAT_REGISTRY).sort()).toEqual([...EXPORT_FORMATS].sort());
    for (const name of EXPORT_FORMATS) {
      expect(exportFormatOf(name)).toBe(EXPORT_FORMAT_REGISTRY[name]);
      expect(EXPORT_FORMAT_REGISTRY[name].name).toBe(name);
    }
  });

  it("says each format's outputs, shared file and folders, and whether it needs keyframes", () => {
    const table = Object.fromEntries(
      EXPORT_FORMATS.map((name) => {
        const f = exportFormatOf(name);
        return [
          name,
          {
            outputs: f.outputs('ep1'),
            needsKeyframes: f.needsKeyframes,
            sharedFile: f.sharedFile,
            sharedDirs: f.sharedDirs,
          },
        ];
      }),
    );
    expect(table).toEqual({
      'agentnet-raw': {
        outputs: ['ep1'],
        needsKeyframes: false,
        sharedFile: null,
        sharedDirs: [],
      },
      'agentnet-jsonl': {
        outputs: ['agentnet.jsonl'],
        needsKeyframes: true,
        sharedFile: 'agentnet.jsonl',
        sharedDirs: ['images', 'cot-input'],
      },
      standardized: {
        outputs: ['ep1.json'],
        needsKeyframes: true,
        sharedFile: null,
        sharedDirs: ['images'],
      },
    });
  });

  it('reads the rows of each format on a readable recording without complaint', () => {
    const t = tempLibrary();
    try {
      const { seq } = makeRecording(t.lib.db);
      for (const name of EXPORT_FORMATS) {
        expect(() => exportFormatOf(name).readRows(t.lib, seq)).not.toThrow();
      }
    } finally {
      t.cleanup();
    }
  });

  it.each(['zip', 'constructor', '__proto__', ''])(
    'refuses the unknown format %j with the formats it knows',
    (name) => {
      let error: unknown;
      try {
        exportFormatOf(name);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: 'INVALID_PAYLOAD',
        message: `format must be one of ${EXPORT_FORMATS.join(', ')}, got "${name}"`,
        details: { field: 'format', format: name },
      });
    },
  );

  it('an export or a read in an unknown format fails first and writes nothing', async () => {
    const t = tempLibrary();
    try {
      const { id } = makeRecording(t.lib.db);
      const outDir = path.join(out, 'unknown');
      const format = 'zip' as ExportFormat;
      await expect(
        runExport(t.lib, [id], { format, outDir, appVersion: '0.0.0-test' }),
      ).rejects.toMatchObject({ code: 'INVALID_PAYLOAD', message: UNKNOWN });
      // refused before the output folder was made
      expect(fs.existsSync(outDir)).toBe(false);
      await expect(loadForExport(t.lib, id, format)).rejects.toMatchObject({
        code: 'INVALID_PAYLOAD',
        message: UNKNOWN,
      });
    } finally {
      t.cleanup();
    }
  });

  it('the upload bundle ships registered formats, agentnet-raw first', () => {
    expect(BUNDLE_FORMATS).toEqual(['agentnet-raw', 'agentnet-jsonl']);
    for (const name of BUNDLE_FORMATS) {
      expect(EXPORT_FORMAT_REGISTRY[name]).toBeDefined();
    }
  });
});
