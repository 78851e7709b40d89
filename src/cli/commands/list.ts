// `cua-annotator list`: the recordings in the library.
import { RECORDING_STATUSES, REVIEW_STATUSES } from '../../shared/domain';
import type { RecordingStatus, ReviewStatus } from '../../shared/domain';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { out, outJson } from '../output';

const HELP = `Usage: cua-annotator list [--status S] [--review S] [--search TEXT] [--limit N] [--json] [--library DIR]

Lists the recordings in the library, newest first.

Options:
  --status S      capture status: ${RECORDING_STATUSES.join(', ')}
  --review S      review status: ${REVIEW_STATUSES.join(', ')}
  --search TEXT   only recordings whose task contains TEXT (case-insensitive)
  --limit N       at most N rows
  --json          print a JSON array for scripts
  --library DIR   library folder (default: CUA_ANNOTATOR_LIBRARY or the app's data folder)
  -h, --help      show this help`;

/** Formats a duration in ms as m:ss.s. */
export function formatDuration(ms: number | null): string {
  if (ms === null) {
    return '-';
  }
  const s = ms / 1000;
  const m = Math.floor(s / 60);
  return `${m}:${(s - m * 60).toFixed(1).padStart(4, '0')}`;
}

/** The `list` command. */
export const listCommand: Command = defineCommand({
  name: 'list',
  summary: 'list the recordings in the library',
  help: HELP,
  options: {
    status: { type: 'string' },
    review: { type: 'string' },
    search: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  args: { none: true },
  run: async ({ values }) => {
    if (values.status && !RECORDING_STATUSES.includes(values.status as RecordingStatus)) {
      throw new UsageError(
        `--status must be one of ${RECORDING_STATUSES.join(', ')} (got "${values.status}")`,
      );
    }
    if (values.review && !REVIEW_STATUSES.includes(values.review as ReviewStatus)) {
      throw new UsageError(
        `--review must be one of ${REVIEW_STATUSES.join(', ')} (got "${values.review}")`,
      );
    }
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw new UsageError(`--limit must be a positive integer (got "${values.limit}")`);
    }
    const rows = await withServices(
      values.library,
      (services) =>
        services.listRecordings({
          status: values.status as RecordingStatus | undefined,
          reviewStatus: values.review as ReviewStatus | undefined,
          search: values.search,
          limit,
        }),
      { readOnly: true }, // reads only: works on a read-only library
    );
    if (values.json) {
      outJson(rows);
      return 0;
    }
    if (!rows.length) {
      out('No recordings. Import one with `cua-annotator import <folder>` or record one.');
      return 0;
    }
    out(
      [
        'ID      ',
        'STATUS   ',
        'REVIEW    ',
        'OS     ',
        'RECORDED        ',
        'ADDED           ',
        'LENGTH ',
        'STEPS',
        'TASK',
      ].join(' '),
    );
    for (const r of rows) {
      const added = minuteText(new Date(r.createdAtMs).toISOString());
      const recorded = r.recordedAt === null ? '-'.padEnd(16) : minuteText(r.recordedAt);
      const task = r.task.length > 60 ? `${r.task.slice(0, 59)}…` : r.task;
      out(
        [
          r.id.slice(0, 8),
          r.status.padEnd(9),
          r.reviewStatus.padEnd(10),
          r.os.padEnd(7),
          recorded,
          added,
          formatDuration(r.durationMs).padStart(7),
          String(r.stepCount).padStart(5),
          task,
        ].join(' '),
      );
    }
    return 0;
  },
});

// A time as `YYYY-MM-DD HH:MM` (ISO times and AgentNet's `YYYY-MM-DD HH:MM:SS` alike), padded.
function minuteText(time: string): string {
  return time.replace('T', ' ').slice(0, 16).padEnd(16);
}
