// @vitest-environment happy-dom
// The structured action editor as a user drives it: typed coordinates, key chips, the kind
// select, Save and Cancel. The editor is controlled; the host keeps its draft the way the step
// editor (StepDetail) does.
import '../helpers/dom';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { ActionCall } from '../../../src/shared/domain';
import { ActionEditor } from '../../../src/renderer/components/ActionEditor';
import { draftFromCalls, type PointTarget } from '../../../src/renderer/lib/action-draft';

const CLICK: ActionCall[] = [{ name: 'click', args: { x: { float: 0.5 }, y: { float: 0.25 } } }];

function Host({
  original,
  onSave,
  onCancel = () => undefined,
}: {
  original: ActionCall[];
  onSave: (calls: ActionCall[]) => void;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState(() => draftFromCalls(original));
  const [pickTarget, setPickTarget] = useState<PointTarget>('point');
  return (
    <ActionEditor
      draft={draft}
      original={original}
      onChange={setDraft}
      pickTarget={pickTarget}
      onPickTarget={setPickTarget}
      onSave={onSave}
      onCancel={onCancel}
    />
  );
}

const saveButton = () => screen.getByRole('button', { name: 'Save action' });

describe('ActionEditor', () => {
  // Catches: a point off the screen (x > 1) accepted and saved as the step's action (the range
  // check of validateDraft lost, or the form submitting whatever was typed on Enter).
  it('refuses a coordinate off the screen: the problem is shown, Save and Enter do nothing', async () => {
    const user = userEvent.setup();
    const onSave = vi.fn();
    render(<Host original={CLICK} onSave={onSave} />);
    const x = screen.getByRole('spinbutton', { name: 'Point x (0–1)' });
    expect(x).toHaveProperty('value', '0.5');

    await user.clear(x);
    await user.type(x, '1.5{Enter}');

    expect(screen.getByRole('alert').textContent).toContain(
      'The target point must lie on the screen (x and y between 0 and 1).',
    );
    expect(saveButton()).toHaveProperty('disabled', true);
    await user.click(saveButton());
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByLabelText('Code preview').textContent).toBe('…');

    // corrected, it saves exactly the typed point (y untouched)
    await user.clear(x);
    await user.type(x, '0.75');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByLabelText('Code preview').textContent).toBe(
      'pyautogui.click(x=0.75, y=0.25)',
    );
    await user.click(saveButton());
    expect(onSave).toHaveBeenCalledTimes(1);
    expect(onSave).toHaveBeenCalledWith([
      { name: 'click', args: { x: { float: 0.75 }, y: { float: 0.25 } } },
    ]);
  });

  // Catches: Save enabled on an untouched draft, so opening and saving the editor writes a
  // no-op edit that marks the step "edited" and adds an undo entry for nothing.
  it('keeps Save off while the draft equals the step, and Cancel saves nothing', async () => {
    const user = userEvent.setup();
    const onSave = vi.fn();
    const onCancel = vi.fn();
    render(<Host original={CLICK} onSave={onSave} onCancel={onCancel} />);
    expect(saveButton()).toHaveProperty('disabled', true);
    expect(saveButton().getAttribute('title')).toBe('Nothing changed yet');

    // a change and its reversal: equal to the step again
    const y = screen.getByRole('spinbutton', { name: 'Point y (0–1)' });
    await user.clear(y);
    await user.type(y, '0.3');
    expect(saveButton()).toHaveProperty('disabled', false);
    await user.clear(y);
    await user.type(y, '0.25');
    expect(saveButton()).toHaveProperty('disabled', true);

    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(onSave).not.toHaveBeenCalled();
  });

  // Catches: an unknown key name (a typo like "ctlr") saved into a hotkey, which no replay or
  // model can press; and chips that do not come off when removed.
  it('builds a hotkey from typed keys, refusing unknown key names', async () => {
    const user = userEvent.setup();
    const onSave = vi.fn();
    render(<Host original={CLICK} onSave={onSave} />);
    await user.selectOptions(screen.getByTestId('action-kind'), 'Hotkey');
    expect(screen.getByRole('alert').textContent).toBe('Add at least one key.');

    const keys = screen.getByRole('combobox', { name: 'Add keys' });
    await user.type(keys, 'Ctrl+ctlr+S{Enter}');
    expect(onSave).not.toHaveBeenCalled();
    expect(
      screen.getAllByRole('button', { name: /^Remove / }).map((b) => b.getAttribute('aria-label')),
    ).toEqual(['Remove ctrl', 'Remove ctlr', 'Remove S']);
    expect(screen.getByRole('alert').textContent).toBe('Unknown key: ctlr.');
    expect(saveButton()).toHaveProperty('disabled', true);

    await user.click(screen.getByRole('button', { name: 'Remove ctlr' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByLabelText('Code preview').textContent).toBe(
      "pyautogui.hotkey(keys=['ctrl', 'S'])",
    );
    await user.click(saveButton());
    expect(onSave).toHaveBeenCalledWith([{ name: 'hotkey', args: { keys: ['ctrl', 'S'] } }]);
  });

  // Catches: a step holding several actions (typed text then Enter) silently losing all but one
  // when saved from the one-action editor.
  it('warns that saving replaces a step of several actions', () => {
    render(
      <Host
        original={[
          { name: 'write', args: { message: 'hello' } },
          { name: 'press', args: { keys: ['enter'] } },
        ]}
        onSave={vi.fn()}
      />,
    );
    expect(screen.getByTestId('action-kind')).toHaveProperty('value', 'write');
    expect(screen.getByRole('textbox', { name: 'Text typed' })).toHaveProperty('value', 'hello');
    expect(
      screen.getByText(
        'This step holds several actions; saving replaces all of them with the one above.',
      ),
    ).toBeTruthy();
  });
});
