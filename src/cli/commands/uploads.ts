// `cua-annotator uploads`: the upload queue and history; cancels an unfinished upload.
import { UPLOAD_STATUSES, type UploadStatus } from '../../shared/domain';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { out, outJson } from '../output';
import { formatMiB, openCliStore, TARGET_OPTIONS } from './upload';

const HELP = `Usage: cua-annotator uploads [--status S] [--limit N] [--json] [--library DIR]
       cua-annotator uploads --cancel UPLOAD_ID [--profile NAME] [--library DIR]

Lists uploads, newest first: the queue (queued, preparing, uploading, verifying, paused,
failed: run \`cua-annotator upload <id>\` again to resume) and the history (uploaded,
cancelled), with bytes sent, objects verified and the reason of a failure.

--cancel aborts an unfinished upload: its multipart uploads are aborted and the objects it
already sent are deleted (there is no manifest, so nobody takes it for a submission).

Options:
  --status S        only uploads in this state: ${UPLOAD_STATUSES.join(', ')}
  --limit N         at most N rows
  --cancel ID       cancel the upload with this id
  --profile NAME    AWS profile for --cancel (else the standard AWS credential chain)
  --json            print JSON for scripts
  --library DIR     library folder
  -h, --help        show this help`;

/** The `uploads` command. */
export const uploadsCommand: Command = defineCommand({
  name: 'uploads',
  summary: 'list the upload queue and history; cancel an upload',
  help: HELP,
  options: {
    status: { type: 'string' },
    limit: { type: 'string' },
    cancel: { type: 'string' },
    profile: TARGET_OPTIONS.profile,
    json: { type: 'boolean' },
  },
  args: { none: true },
  run: async ({ values }) => {
    if (values.status && !UPLOAD_STATUSES.includes(values.status as UploadStatus)) {
      throw new UsageError(
        `--status must be one of ${UPLOAD_STATUSES.join(', ')} (got "${values.status}")`,
      );
    }
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new UsageError(`--limit must be a positive integer (got "${values.limit}")`);
    }
    if (values.cancel !== undefined) {
      const id = Number(values.cancel);
      if (!Number.isInteger(id) || id < 1) {
        throw new UsageError(`--cancel needs an upload id (got "${values.cancel}")`);
      }
      const view = await withServices(values.library, ({ uploads }) => uploads.cancel(id), {
        services: { uploads: { openStore: (target) => openCliStore(target, values.profile) } },
      });
      if (values.json) {
        outJson(view);
      } else {
        out(`cancelled upload ${id} of ${view.recordingId.slice(0, 8)} to ${view.location}`);
      }
      return 0;
    }
    const rows = await withServices(values.library, ({ uploads }) =>
      uploads.list({
        ...(values.status ? { status: values.status as UploadStatus } : {}),
        ...(limit ? { limit } : {}),
      }),
    );
    if (values.json) {
      outJson(rows);
      return 0;
    }
    if (!rows.length) {
      out('No uploads. Send recordings with `cua-annotator upload <id> --to s3://BUCKET/PREFIX`.');
      return 0;
    }
    out(
      [
        'ID   ',
        'RECORDING',
        'STATUS    ',
        'PROGRESS            ',
        'UPDATED         ',
        'WHERE',
      ].join(' '),
    );
    for (const r of rows) {
      const updated = new Date(r.updatedAtMs).toISOString().slice(0, 16).replace('T', ' ');
      const progress = `${formatMiB(r.bytesDone)}/${formatMiB(r.bytesTotal)}`;
      out(
        [
          String(r.uploadId).padEnd(5),
          r.recordingId.slice(0, 8).padEnd(9),
          r.status.padEnd(10),
          progress.padEnd(20),
          updated,
          r.location,
        ].join(' '),
      );
      if (r.error) {
        out(`      ${r.error}`);
      }
    }
    return 0;
  },
});
