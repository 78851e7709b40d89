// @vitest-environment happy-dom
// The review panel as a reviewer drives it, with the check gate's dialog, wired to the review
// and check gate stores the way the recording page and the app wire them; only the api client
// is fake.
import '../helpers/dom';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RecordingDto } from '../../../src/shared/contract';
import type { CheckProblemDto } from '../../../src/renderer/store/check';
import type { ReviewStatus } from '../../../src/shared/domain';
import { CheckGateDialog } from '../../../src/renderer/components/CheckGateDialog';
import { ReviewPanel } from '../../../src/renderer/components/ReviewPanel';
import { reviewSelectors, useReviewStore } from '../../../src/renderer/store/review';
import { makeRecording } from '../helpers/dto';
import { FakeFailure, flush, installFakeApi } from '../helpers/fake-api';

type SetStatusInput = {
  id: string;
  status: ReviewStatus;
  comment?: string;
  grade?: string;
  reviewer?: string;
};

/** A fake service: the recording, its checks' findings, and review moves added to its history. */
function fakeService(rec: RecordingDto, problems: CheckProblemDto[] = []) {
  const api = installFakeApi();
  let current = rec;
  let refusal: string | null = null;
  api.on('recordings:get', () => current);
  api.on('recordings:check', () => ({
    ok: problems.every((p) => p.severity !== 'error'),
    problems,
  }));
  api.on('reviews:set-status', (p) => {
    if (refusal !== null) {
      throw new FakeFailure('REVIEW_INVALID', refusal);
    }
    const input = p as SetStatusInput;
    current = {
      ...current,
      reviewStatus: input.status,
      reviews: [
        ...current.reviews,
        {
          atMs: 1_700_000_100_000 + current.reviews.length,
          status: input.status,
          reviewer: input.reviewer ?? null,
          grade: input.grade ?? null,
          comment: input.comment ?? null,
        },
      ],
    };
    return current;
  });
  return {
    api,
    sent: () => api.calls.filter((c) => c.method === 'reviews:set-status').map((c) => c.payload),
    checks: () => api.calls.filter((c) => c.method === 'recordings:check').length,
    refuse: (message: string | null) => (refusal = message),
  };
}

// What the recording page's Review tab and the app's gate dialog render.
function Host() {
  const recording = useReviewStore(reviewSelectors.recording);
  const isBusy = useReviewStore((s) => s.reviewBusy);
  const error = useReviewStore((s) => s.reviewError);
  if (!recording) {
    return null;
  }
  return (
    <>
      <ReviewPanel
        recording={recording}
        isBusy={isBusy}
        error={error}
        onSetStatus={(input) => void useReviewStore.getState().setReviewStatus(input)}
      />
      <CheckGateDialog />
    </>
  );
}

async function openPanel(rec: RecordingDto, problems: CheckProblemDto[] = []) {
  const service = fakeService(rec, problems);
  await act(async () => {
    await useReviewStore.getState().open(rec.id);
  });
  render(<Host />);
  return service;
}

async function settle() {
  await act(async () => {
    await flush();
    await useReviewStore.getState().whenIdle();
    await flush();
  });
}

const panel = () => within(screen.getByTestId('review-panel'));
const button = (name: string) => panel().getByRole('button', { name });

// the reviewer's name outlives a page in localStorage; each test starts without one
beforeEach(() => {
  window.localStorage.clear();
});

describe('ReviewPanel', () => {
  // Catches: a verdict sent without the reviewer's grade or name, with the comment's stray
  // spaces, or without the checks before accepting (docs/quality.md §3).
  it('accepts with the comment, grade and reviewer after the checks found nothing', async () => {
    const user = userEvent.setup();
    const service = await openPanel(makeRecording(2, { reviewStatus: 'submitted' }));
    expect(panel().getByText('No review yet.')).toBeTruthy();

    await user.type(panel().getByRole('textbox', { name: 'Reviewer' }), 'Ana');
    await user.type(panel().getByRole('textbox', { name: 'Comment' }), '  Clean run.  ');
    await user.selectOptions(panel().getByRole('combobox', { name: 'Quality grade' }), 'B · good');
    await user.click(button('Accept'));
    await settle();

    expect(service.api.methods().filter((m) => m !== 'recordings:get')).toEqual([
      'recordings:check',
      'reviews:set-status',
    ]);
    expect(service.sent()).toEqual([
      { id: 'rec-1', status: 'accepted', comment: 'Clean run.', grade: 'B', reviewer: 'Ana' },
    ]);
    expect(panel().getByRole('textbox', { name: 'Comment' })).toHaveProperty('value', '');
    const history = panel().getByRole('list');
    expect(history.textContent).toContain('grade B');
    expect(history.textContent).toContain('Ana: Clean run.');
    // the reviewer's name is remembered for the next recording
    expect(window.localStorage.getItem('cua-annotator.reviewer')).toBe('Ana');
  });

  // Catches: a grade leaking into a move that is not a verdict (a resubmit), and the checks
  // run (or skipped) on the wrong moves: "Needs edit" is not gated, a submit is.
  it('grades verdicts only, and gates submit and accept only', async () => {
    const user = userEvent.setup();
    const service = await openPanel(makeRecording(2, { reviewStatus: 'submitted' }));
    await user.selectOptions(
      panel().getByRole('combobox', { name: 'Quality grade' }),
      'C · usable',
    );
    await user.click(button('Needs edit'));
    await settle();
    expect(service.checks()).toBe(0);
    expect(service.sent()).toEqual([{ id: 'rec-1', status: 'needs-edit', grade: 'C' }]);

    // from "needs edit" the annotator resubmits: checked, and never graded
    expect(
      panel()
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Submit for review', 'Back to draft']);
    await user.click(button('Submit for review'));
    await settle();
    expect(service.checks()).toBe(1);
    expect(service.sent().at(-1)).toEqual({ id: 'rec-1', status: 'submitted' });
  });

  // Catches: check errors that do not block (the verdict sent at once, or "go on" allowed
  // without a reason), "Fix first" still sending, and an override that leaves no trace in the
  // review history.
  it('shows the problems found; errors block until a reason is given, which the comment keeps', async () => {
    const user = userEvent.setup();
    const service = await openPanel(makeRecording(3, { reviewStatus: 'submitted' }), [
      {
        code: 'UNLABELLED_STEP',
        stepIndex: 2,
        message: 'Step 2 has no label.',
        fix: 'Write what the step does.',
        severity: 'error',
      },
      {
        code: 'LONG_IDLE',
        stepIndex: null,
        message: 'Nothing happens for 40 s.',
        fix: 'Trim the idle time.',
        severity: 'warning',
      },
    ]);
    await user.click(button('Accept'));
    await settle();
    const gate = within(screen.getByRole('dialog', { name: 'Checks before accepting' }));
    expect(gate.getByTestId('check-gate-summary').textContent).toBe(
      '1 error, 1 warning. Errors block until they are fixed.',
    );
    const problems = gate.getAllByTestId('check-problem').map((li) => li.textContent);
    expect(problems).toEqual([
      'error UNLABELLED_STEP step 2Step 2 has no label.Fix: Write what the step does.',
      'warning LONG_IDLENothing happens for 40 s.Fix: Trim the idle time.',
    ]);
    expect(gate.getByRole('button', { name: 'Accept despite errors' })).toHaveProperty(
      'disabled',
      true,
    );
    await user.click(gate.getByRole('button', { name: 'Fix first' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    await settle();
    expect(service.sent()).toEqual([]);

    await user.type(panel().getByRole('textbox', { name: 'Comment' }), 'Fine otherwise.');
    await user.click(button('Accept'));
    await settle();
    const again = within(screen.getByRole('dialog'));
    await user.type(again.getByTestId('check-gate-reason'), 'The label is in the task text.');
    await user.click(again.getByRole('button', { name: 'Accept despite errors' }));
    await settle();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(service.sent()).toEqual([
      {
        id: 'rec-1',
        status: 'accepted',
        comment:
          'Fine otherwise.\n\nAccepted despite check errors (UNLABELLED_STEP step 2). ' +
          'Reason: The label is in the task text.',
      },
    ]);
  });

  // Catches: a second press of Accept while the checks of the first still run sending a second
  // verdict (two history entries, two "accepted" events for the team hub).
  it('sends one verdict for two presses made while the checks run', async () => {
    const user = userEvent.setup();
    const service = await openPanel(makeRecording(2, { reviewStatus: 'submitted' }));
    service.api.hold();
    await user.click(button('Accept'));
    await user.click(button('Accept'));
    await act(async () => {
      await service.api.release();
    });
    await settle();
    expect(service.checks()).toBe(2);
    expect(service.sent()).toEqual([{ id: 'rec-1', status: 'accepted' }]);
    expect(panel().getAllByRole('listitem')).toHaveLength(1);
  });

  // Catches: verdict buttons left pressable while a move is being saved (a double click sends
  // two verdicts), and a refused move that says nothing and leaves the panel stuck.
  it('disables the moves while one is saved and shows why the service refused it', async () => {
    const user = userEvent.setup();
    const service = await openPanel(makeRecording(2, { reviewStatus: 'submitted' }));
    service.refuse('Only a submitted recording can get a verdict.');
    service.api.hold();
    await user.click(button('Reject'));
    // the answer is held: only let React render the busy state
    await act(async () => {
      await flush();
    });
    for (const name of ['Accept', 'Needs edit', 'Reject', 'Back to draft']) {
      expect(button(name)).toHaveProperty('disabled', true);
    }
    await user.click(button('Reject'));
    await act(async () => {
      await service.api.release();
    });
    await settle();
    expect(service.sent()).toEqual([{ id: 'rec-1', status: 'rejected' }]);
    expect(panel().getByRole('alert').textContent).toBe(
      'Only a submitted recording can get a verdict.',
    );
    expect(button('Reject')).toHaveProperty('disabled', false);
    expect(panel().getByText('No review yet.')).toBeTruthy();
  });
});
