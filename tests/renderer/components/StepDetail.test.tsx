// @vitest-environment happy-dom
// The step editor (StepDetail) as a user drives it, wired to the review store the way the
// recording page wires it; only the api client is fake, and its edits go through the edit
// service's own applyEdits (helpers/service-edit.ts).
import '../helpers/dom';
import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { RecordingDto, StepEdit } from '../../../src/shared/contract';
import { StepDetail } from '../../../src/renderer/components/StepDetail';
import { reviewSelectors, useReviewStore } from '../../../src/renderer/store/review';
import { makeRecording, makeStep } from '../helpers/dto';
import { flush, installFakeApi } from '../helpers/fake-api';
import { serviceEdit } from '../helpers/service-edit';

/** A fake edit service over one recording; answers with the recording after each edit. */
function fakeService(rec: RecordingDto) {
  const api = installFakeApi();
  let current = rec;
  api.on('recordings:get', () => current);
  api.on('edits:apply', (p) => {
    const { edit } = p as { edit: StepEdit };
    current = {
      ...serviceEdit(current, edit, current.editVersion + 1),
      editVersion: current.editVersion + 1,
    };
    return current;
  });
  const edits = () =>
    api.calls
      .filter((c) => c.method === 'edits:apply')
      .map((c) => (c.payload as { edit: StepEdit }).edit);
  return { api, edits, current: () => current };
}

// What RecordingPage renders for the selected step.
function Host() {
  const recording = useReviewStore(reviewSelectors.recording);
  const step = useReviewStore(reviewSelectors.selectedStep);
  const labelText = useReviewStore((s) => {
    const st = reviewSelectors.selectedStep(s);
    return st ? reviewSelectors.labelText(s, st) : '';
  });
  if (!recording || !step) {
    return null;
  }
  const actions = useReviewStore.getState();
  return (
    <StepDetail
      key={step.id}
      recording={recording}
      step={step}
      labelText={labelText}
      onLabelChange={(text) => actions.setLabelDraft(step.id, text)}
      onFlush={actions.flushDrafts}
      onEdit={(edit) => void actions.applyEdit(edit)}
    />
  );
}

/** Opens `rec` in the review store, selects `stepId` and renders the step editor. */
async function openStep(rec: RecordingDto, stepId: string) {
  const service = fakeService(rec);
  await act(async () => {
    await useReviewStore.getState().open(rec.id);
  });
  act(() => useReviewStore.getState().selectStep(stepId));
  render(<Host />);
  return service;
}

/** Lets the queued edit calls answer and React render their results. */
async function settle() {
  await act(async () => {
    await useReviewStore.getState().whenIdle();
    await flush();
  });
}

describe('StepDetail', () => {
  // Catches: a relabel left waiting for the autosave timer (or lost) when the annotator leaves
  // the label with Escape or Ctrl+Enter, and a no-op relabel sent for an untouched label.
  it('sends the typed label at once when the field is left with Escape or Ctrl+Enter', async () => {
    const user = userEvent.setup();
    const service = await openStep(makeRecording(3), 's1');
    const label = screen.getByRole('textbox', { name: 'Label (natural-language instruction)' });
    expect(label).toHaveProperty('value', 'step s1');

    await user.click(label);
    await user.keyboard('{Escape}');
    await settle();
    expect(service.edits()).toEqual([]);

    await user.click(label);
    await user.clear(label);
    await user.type(label, 'Open the File menu');
    // typed, not yet sent: the autosave waits for a pause (AUTOSAVE_DELAY_MS, 600 ms; leaving
    // the field below and the answer take a few ms)
    expect(service.edits()).toEqual([]);
    await user.keyboard('{Escape}');
    await settle();
    expect(document.activeElement).not.toBe(label);
    expect(service.edits()).toEqual([{ op: 'relabel', stepId: 's1', label: 'Open the File menu' }]);
    expect(service.current().steps[1]!.label).toBe('Open the File menu');
    expect(label).toHaveProperty('value', 'Open the File menu');
    expect(screen.getByText('edited')).toBeTruthy();

    await user.click(label);
    await user.type(label, ' again');
    await user.keyboard('{Control>}{Enter}{/Control}');
    await settle();
    expect(service.edits().at(-1)).toEqual({
      op: 'relabel',
      stepId: 's1',
      label: 'Open the File menu again',
    });
  });

  // Catches: a mark button that cannot be switched off again (it sends its mark a second time
  // instead of clearing it), and pressed states that do not follow the step.
  it('marks the step and clears the mark with a second press', async () => {
    const user = userEvent.setup();
    const service = await openStep(makeRecording(2), 's0');
    const correct = screen.getByRole('button', { name: '✓ Correct' });
    expect(correct.getAttribute('aria-pressed')).toBe('false');

    await user.click(correct);
    await settle();
    expect(service.edits()).toEqual([{ op: 'mark', stepId: 's0', mark: 'correct' }]);
    expect(screen.getByRole('button', { name: '✓ Correct' }).getAttribute('aria-pressed')).toBe(
      'true',
    );

    await user.click(screen.getByRole('button', { name: '≈ Redundant' }));
    await settle();
    await user.click(screen.getByRole('button', { name: '≈ Redundant' }));
    await settle();
    expect(service.edits().slice(1)).toEqual([
      { op: 'mark', stepId: 's0', mark: 'redundant' },
      { op: 'mark', stepId: 's0', mark: null },
    ]);
    expect(service.current().steps[0]!.mark).toBeNull();
    for (const name of ['✓ Correct', '✗ Incorrect', '≈ Redundant']) {
      expect(screen.getByRole('button', { name }).getAttribute('aria-pressed')).toBe('false');
    }
  });

  // Catches: the keyframe picker of a drag setting its start twice (the second click not moving
  // on to the end), so a drag can never be picked; and Save not reaching the service.
  it('picks a drag on the keyframe, start then end, and saves it as the step action', async () => {
    const user = userEvent.setup();
    const service = await openStep(makeRecording(2), 's0');
    await user.click(screen.getByRole('button', { name: '✎ Edit action' }));
    await user.selectOptions(screen.getByTestId('action-kind'), 'Drag');

    const keyframe = screen.getByTestId('keyframe');
    // happy-dom lays nothing out: the keyframe is given a 400×200 box at (10, 20)
    vi.spyOn(keyframe, 'getBoundingClientRect').mockReturnValue(new DOMRect(10, 20, 400, 200));
    await user.pointer({
      keys: '[MouseLeft]',
      target: keyframe,
      coords: { clientX: 110, clientY: 70 },
    });
    expect(screen.getByText('Click on the keyframe to set the drag end.')).toBeTruthy();
    await user.pointer({
      keys: '[MouseLeft]',
      target: keyframe,
      coords: { clientX: 310, clientY: 170 },
    });

    expect(screen.getByRole('spinbutton', { name: 'From x (0–1)' })).toHaveProperty(
      'value',
      '0.25',
    );
    expect(screen.getByRole('spinbutton', { name: 'From y (0–1)' })).toHaveProperty(
      'value',
      '0.25',
    );
    expect(screen.getByRole('spinbutton', { name: 'To x (0–1)' })).toHaveProperty('value', '0.75');
    expect(screen.getByRole('spinbutton', { name: 'To y (0–1)' })).toHaveProperty('value', '0.75');

    await user.click(screen.getByRole('button', { name: 'Save action' }));
    await settle();
    expect(service.edits()).toEqual([
      {
        op: 'set-action',
        stepId: 's0',
        calls: [
          { name: 'moveTo', args: { x: { float: 0.25 }, y: { float: 0.25 } } },
          { name: 'dragTo', args: { x: { float: 0.75 }, y: { float: 0.75 }, button: 'left' } },
        ],
      },
    ]);
    expect(screen.queryByTestId('action-editor')).toBeNull();
    expect(screen.getByTestId('step-code').textContent).toBe(service.current().steps[0]!.code);
    expect(screen.getByTestId('step-code').textContent).toContain('pyautogui.dragTo(');
  });

  // Catches: structure edits offered where the service must refuse them — merging the last
  // step with a next one that does not exist, a second terminate after one — and a split at
  // another place than the one shown.
  it('offers merge, end and split only where they apply, and splits where the preview shows', async () => {
    const user = userEvent.setup();
    const rec = makeRecording(0, {
      steps: [
        makeStep('s0', 0, {
          kind: 'write',
          calls: [{ name: 'write', args: { message: 'hello' } }],
          code: "pyautogui.write(message='hello')",
        }),
        makeStep('s1', 1, {
          kind: 'terminate',
          calls: [{ name: 'terminate', args: { status: 'success' } }],
          code: "computer.terminate(status='success')",
        }),
      ],
    });
    const service = await openStep(rec, 's0');
    expect(screen.getByTestId('merge-next')).toHaveProperty('disabled', false);
    expect(screen.getByRole('button', { name: '+ End (success)' })).toHaveProperty(
      'disabled',
      true,
    );
    expect(screen.getByRole('button', { name: '+ End (failure)' })).toHaveProperty(
      'disabled',
      true,
    );

    await user.click(screen.getByRole('button', { name: '✂ Split…' }));
    fireEvent.change(screen.getByRole('slider', { name: 'Split position' }), {
      target: { value: '2' },
    });
    expect(screen.getByTestId('split-panel').querySelector('.split-a')?.textContent).toBe('he');
    expect(screen.getByTestId('split-panel').querySelector('.split-b')?.textContent).toBe('llo');
    await user.click(screen.getByRole('button', { name: 'Split into two steps' }));
    await settle();
    expect(service.edits()).toEqual([{ op: 'split', stepId: 's0', at: 2 }]);
    expect(service.current().steps.map((s) => s.calls)).toEqual([
      [{ name: 'write', args: { message: 'he' } }],
      [{ name: 'write', args: { message: 'llo' } }],
      [{ name: 'terminate', args: { status: 'success' } }],
    ]);

    // the last step: nothing to merge with
    act(() => useReviewStore.getState().selectStep('s1'));
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Step 3 of 3');
    expect(screen.getByTestId('merge-next')).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: '✂ Split…' })).toHaveProperty('disabled', true);
  });
});
