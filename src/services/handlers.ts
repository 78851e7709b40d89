// The contract's handlers: one per method, each translating the payload into a service call and
// the result into the method's output (docs/architecture.md §3). Logic lives in the services.
import type { ApiMethod, ApiMethods } from '../shared/contract';
import { AppError } from '../shared/errors';
import { findRecordingBasics, resolveRecordingSeq } from '../store';
import { editCotStepTexts, editCotSummaryFields, getCotView } from './cot/cot-view';
import type { ServiceContext } from './context';
import { applyEdit, redoNextEdit, undoLastEdit } from './edits/edit-service';
import { runExport } from './export/export-service';
import { scanWithResolutions } from './privacy/policy';
import { checkRecordingInLibrary } from './quality/check-service';
import { reviewRedactions } from './privacy/review-redactions';
import { redactFindings } from './privacy/text-redaction';
import { deleteRecording } from './recordings';
import { readSettings, writeSettings } from './settings/settings-service';
import {
  getRecordingDto,
  getStepAxTree,
  listRecordingsPage,
  saveRecordingLabels,
  setReviewStatus,
  updateRecordingTask,
} from './review-service';

/** A handler for every method: `(input, ctx) → output`. */
export type ApiHandlers = {
  [M in ApiMethod]: (
    input: ApiMethods[M]['input'],
    ctx: ServiceContext,
  ) => Promise<ApiMethods[M]['output']>;
};

/** Runs synchronous service code as a promise (a throw becomes a rejection). */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(fn()));
}

/**
 * The contract names recordings by their full id (id prefixes are a CLI convenience): an id
 * that is not exactly a recording's is NOT_FOUND, so no call can act on a prefix match.
 */
function exact(ctx: ServiceContext, id: string): string {
  if (!findRecordingBasics(ctx.lib.db, id)) {
    throw new AppError('NOT_FOUND', `No recording with id "${id}".`, { id });
  }
  return id;
}

/** Announces a changed recording to every view and returns its fresh page data. */
function changed(ctx: ServiceContext, id: string): ApiMethods['recordings:get']['output'] {
  const dto = getRecordingDto(ctx.lib, id, ctx);
  ctx.emit('recordings:changed', { id: dto.id });
  return dto;
}

/** {@link changed} after an edit of the steps: steps it changed get their keyframes in the
 * background (announced again when they are there). */
function changedSteps(ctx: ServiceContext, id: string): ApiMethods['recordings:get']['output'] {
  const dto = changed(ctx, id);
  void ctx.keyframes.enqueue(id);
  return dto;
}

/** A recording's page data; opening one whose keyframes are missing or stale queues them (the
 * page data says whether any step lacks one: no second read of the steps otherwise). */
function openRecording(ctx: ServiceContext, id: string): ApiMethods['recordings:get']['output'] {
  const dto = getRecordingDto(ctx.lib, exact(ctx, id), ctx);
  if (dto.steps.some((s) => s.keyframeUrl === null)) {
    ctx.keyframes.ensure(dto.id);
  }
  // a job that failed (e.g. DISK_FULL) is not retried by opening the page: say why instead
  const failure = ctx.keyframes.lastError(dto.id);
  return failure
    ? {
        ...dto,
        keyframesError: { code: failure.code, message: failure.message, fix: failure.fix ?? null },
      }
    : dto;
}

/** Every contract method's handler. */
export const handlers = {
  'recordings:list': (input, ctx) => settle(() => listRecordingsPage(ctx.lib, input)),
  'recordings:get': (input, ctx) => settle(() => openRecording(ctx, input.id)),
  'recordings:update-task': (input, ctx) =>
    settle(() => {
      updateRecordingTask(
        ctx.lib,
        exact(ctx, input.id),
        {
          ...(input.task !== undefined ? { task: input.task } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
        },
        Date.now(),
        { force: input.force },
      );
      return changed(ctx, input.id);
    }),
  'recordings:delete': (input, ctx) =>
    // async: a recording whose recorder died is recovered before it is deleted
    (async () => {
      const deleted = await deleteRecording(ctx.lib, exact(ctx, input.id));
      ctx.emit('recordings:changed', { id: deleted.id });
      return deleted;
    })(),
  'edits:apply': (input, ctx) =>
    settle(() => {
      applyEdit(ctx.lib, exact(ctx, input.id), input.edit, { force: input.force });
      return changedSteps(ctx, input.id);
    }),
  'edits:undo': (input, ctx) =>
    settle(() => {
      undoLastEdit(ctx.lib, exact(ctx, input.id), { force: input.force });
      return changedSteps(ctx, input.id);
    }),
  'edits:redo': (input, ctx) =>
    settle(() => {
      redoNextEdit(ctx.lib, exact(ctx, input.id), { force: input.force });
      return changedSteps(ctx, input.id);
    }),
  'labels:save': (input, ctx) =>
    settle(() => {
      saveRecordingLabels(ctx.lib, exact(ctx, input.id), input.labels, Date.now(), {
        force: input.force,
      });
      return changed(ctx, input.id);
    }),
  'reviews:set-status': (input, ctx) =>
    settle(() => {
      setReviewStatus(ctx.lib, exact(ctx, input.id), {
        status: input.status,
        comment: input.comment,
        grade: input.grade,
        reviewer: input.reviewer,
      });
      return changed(ctx, input.id);
    }),
  'keyframes:compute': async (input, ctx) => {
    // "Recompute": every keyframe again, through the runner (one job per recording at a time)
    const outcome = await ctx.keyframes.enqueue(exact(ctx, input.id), { recompute: true });
    if (outcome.state === 'failed') {
      throw outcome.error;
    }
    if (outcome.state === 'cancelled') {
      throw new AppError('ABORTED', `Keyframes of ${input.id} were cancelled.`, { id: input.id });
    }
    return changed(ctx, input.id);
  },
  'axtree:get': (input, ctx) =>
    settle(() => getStepAxTree(ctx.lib, exact(ctx, input.id), input.stepId)),
  'exports:run': async (input, ctx) => {
    const ids = input.ids.map((id) => exact(ctx, id));
    const run = await runExport(ctx.lib, ids, {
      format: input.format,
      outDir: input.outDir,
      appVersion: ctx.appVersion,
      skipDamaged: input.skipDamaged,
      overwrite: input.overwrite ?? false,
      allowPii: input.allowPii ?? false,
      onProgress: (p) => ctx.emit('exports:progress', p),
    });
    return {
      outDir: input.outDir,
      skipped: run.skipped,
      recordings: run.recordings.map((r) => ({
        id: r.id,
        episodeId: r.episodeId,
        outputs: r.outputs,
        files: r.files,
        warnings: r.warnings,
      })),
    };
  },
  'recordings:check': (input, ctx) =>
    settle(() => {
      const { ok, problems } = checkRecordingInLibrary(ctx.lib, exact(ctx, input.id));
      return { ok, problems };
    }),
  'privacy:scan': (input, ctx) => settle(() => scanWithResolutions(ctx.lib, exact(ctx, input.id))),
  'privacy:redact': (input, ctx) =>
    settle(() => {
      redactFindings(ctx.lib, exact(ctx, input.id), input.findingIds, { force: input.force });
      return changed(ctx, input.id);
    }),
  'privacy:redactions': (input, ctx) =>
    settle(() => reviewRedactions(ctx.lib, exact(ctx, input.id))),
  'uploads:defaults': (_input, ctx) => settle(() => ctx.uploads.defaults()),
  'uploads:enqueue': async (input, ctx) => {
    const ids = input.ids.map((id) => exact(ctx, id));
    return ctx.uploads.start({
      ids,
      to: input.to,
      annotator: input.annotator,
      allowPii: input.allowPii ?? false,
    });
  },
  'uploads:list': (_input, ctx) => settle(() => ctx.uploads.list()),
  'uploads:retry': (input, ctx) => settle(() => ctx.uploads.retry(input.uploadId)),
  'uploads:cancel': (input, ctx) => ctx.uploads.cancel(input.uploadId),
  'replay:start': (input, ctx) =>
    ctx.replay.start(exact(ctx, input.id), {
      ...(input.speed === undefined ? {} : { speed: input.speed }),
    }),
  'replay:status': (input, ctx) => ctx.replay.status(exact(ctx, input.id)),
  'replay:cancel': (input, ctx) => ctx.replay.cancel(exact(ctx, input.id)),
  'recorder:start': (input, ctx) => ctx.recorder.start(input),
  'recorder:pause': (_input, ctx) => ctx.recorder.pause(),
  'recorder:resume': (_input, ctx) => ctx.recorder.resume(),
  'recorder:stop': (_input, ctx) => ctx.recorder.stop(),
  'recorder:discard': (_input, ctx) => ctx.recorder.discard(),
  'recorder:get-status': (_input, ctx) => settle(() => ctx.recorder.status()),
  'system:health': async (_input, ctx) => {
    const { runDoctor } = await import('./system/doctor');
    const report = await runDoctor(ctx.env, { libraryDir: ctx.lib.dir });
    const host = ctx.hostHealthChecks();
    return {
      ok: report.ok && host.every((c) => c.ok || c.severity !== 'error'),
      platform: report.platform,
      checks: [
        ...report.checks.map((c) => ({
          id: c.id,
          ok: c.ok,
          severity: c.severity,
          summary: c.summary,
          ...(c.fix && !c.ok ? { fix: c.fix } : {}),
        })),
        ...host,
      ],
    };
  },
  'settings:get': (_input, ctx) => settle(() => readSettings(ctx.lib, ctx.settingsHost)),
  'settings:set': (input, ctx) =>
    settle(() => writeSettings(ctx.lib, input, ctx.settingsHost, ctx.env)),
  'team:status': (_input, ctx) => ctx.team.status(),
  'team:sign-in': (input, ctx) => ctx.team.signIn(input),
  'team:change-password': (input, ctx) => ctx.team.signIn(input),
  'team:sign-out': (_input, ctx) => ctx.team.signOut(),
  'team:submit': async (input, ctx) => ({
    submissions: await ctx.team.submit(input.ids.map((id) => exact(ctx, id))),
  }),
  'team:cancel-pending': async (input, ctx) => ({
    pending: await ctx.team.cancelPending(input.id),
  }),
  'team:submissions': (_input, ctx) => ctx.team.submissions(),
  'team:review-next': async (_input, ctx) => ({ submission: await ctx.team.reviewNext() }),
  'team:tasks': (_input, ctx) => ctx.team.tasks(),
  'team:claim-task': (input, ctx) => ctx.team.claimTask(input.id),
  'team:verdict': (input, ctx) =>
    ctx.team.verdict(exact(ctx, input.recordingId), {
      verdict: input.verdict,
      ...(input.grade !== undefined ? { grade: input.grade } : {}),
      ...(input.feedback !== undefined ? { feedback: input.feedback } : {}),
    }),
  // the review page's CoT (docs/cot.md §9)
  'cot:get': (input, ctx) => getCotView(ctx.lib, exact(ctx, input.id)),
  'cot:edit-step': (input, ctx) =>
    editCotStepTexts(ctx.lib, resolveRecordingSeq(ctx.lib.db, exact(ctx, input.id)).seq, input),
  'cot:edit-summary': (input, ctx) =>
    editCotSummaryFields(ctx.lib, resolveRecordingSeq(ctx.lib.db, exact(ctx, input.id)).seq, input),
} satisfies ApiHandlers;
