// Each enum is written once, in shared/domain: the contract's schemas, the store, the export
// service, the review UI and the CLI all take the same list (the same array, where they export
// one), so adding a format or a status in the domain reaches every one of them.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/args';
import { exportCommand } from '../../../src/cli/commands/export';
import { listCommand } from '../../../src/cli/commands/list';
import { EXPORT_FORMAT_LABELS } from '../../../src/renderer/store/export/selectors';
import { DRAG_BUTTONS } from '../../../src/renderer/lib/action-draft';
import { EXPORT_FORMATS as SERVICE_EXPORT_FORMATS } from '../../../src/services/export/export-service';
import {
  RecordingDtoSchema,
  RecordingQuerySchema,
  UploadViewDtoSchema,
} from '../../../src/shared/contract';
import {
  CALL_BUTTONS,
  EXPORT_FORMATS,
  ExportFormatSchema,
  RECORDING_STATUSES,
  REVIEW_STATUSES,
  UPLOAD_STATUSES,
} from '../../../src/shared/domain';
import { UPLOAD_STATUSES as STORE_UPLOAD_STATUSES } from '../../../src/store/queries/uploads';

describe('one source for each enum', () => {
  it('the export service, the store and the UI use the domain arrays', () => {
    expect(SERVICE_EXPORT_FORMATS).toBe(EXPORT_FORMATS);
    expect(ExportFormatSchema.options).toBe(EXPORT_FORMATS);
    expect(STORE_UPLOAD_STATUSES).toBe(UPLOAD_STATUSES);
    expect(DRAG_BUTTONS).toBe(CALL_BUTTONS);
    expect(Object.keys(EXPORT_FORMAT_LABELS).sort()).toEqual([...EXPORT_FORMATS].sort());
  });

  it('the contract schemas take the domain statuses', () => {
    expect(RecordingDtoSchema.entries.status.options).toBe(RECORDING_STATUSES);
    expect(RecordingDtoSchema.entries.reviewStatus.options).toBe(REVIEW_STATUSES);
    expect(UploadViewDtoSchema.entries.status.options).toBe(UPLOAD_STATUSES);
    const query = RecordingQuerySchema.wrapped.pipe[1];
    expect(query.entries.status.wrapped.options).toBe(RECORDING_STATUSES);
    expect(query.entries.reviewStatus.wrapped.options).toBe(REVIEW_STATUSES);
  });

  it("the CLI accepts exactly the domain's export formats and statuses", async () => {
    const out = '/tmp/cua-one-source-never-written';
    await expect(exportCommand.run(['--format', 'zip', '--out', out])).rejects.toThrow(
      new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`),
    );
    for (const format of EXPORT_FORMATS) {
      // past the format check: the next usage check (ids and --all together) stops it
      await expect(
        exportCommand.run(['--format', format, '--out', out, '--all', 'some-id']),
      ).rejects.toThrow('give recording ids or --all');
    }
    await expect(listCommand.run(['--status', 'bogus'])).rejects.toThrow(
      `--status must be one of ${RECORDING_STATUSES.join(', ')} (got "bogus")`,
    );
    await expect(listCommand.run(['--review', 'bogus'])).rejects.toThrow(
      `--review must be one of ${REVIEW_STATUSES.join(', ')} (got "bogus")`,
    );
  });
});
