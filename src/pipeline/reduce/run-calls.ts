// Keyboard-run calls built left to right with backspace folding (docs/action-reduction.md §C.6).
import type { ActionCall } from '../../shared/domain/action';
import { dropLastChar, pressCall, writeCall } from '../code/call-args';
import type { RunDraft, StrokeDraft } from './drafts';
import { LOCK_KEYS } from './key-names';

function flushText(run: RunDraft): void {
  if (run.text !== '') {
    run.calls.push(writeCall(run.text));
    run.text = '';
  }
}

// Applies one keystroke to the run: text appends, backspace deletes, named keys press.
export function applyKeystroke(run: RunDraft, stroke: StrokeDraft): void {
  if (stroke.text !== '') {
    run.text += stroke.text;
    return;
  }
  if (stroke.key === 'backspace') {
    if (run.text !== '') {
      run.text = dropLastChar(run.text);
    } else {
      run.calls.push(pressCall(['backspace']));
    }
    return;
  }
  // Lock keys change nothing the OS text does not already show; unknown keys cannot be replayed.
  if (LOCK_KEYS.has(stroke.key) || !stroke.isKnown || stroke.key === 'Unknown') {
    return;
  }
  flushText(run);
  run.calls.push(pressCall([stroke.key]));
}

// The run's calls with the pending text flushed (the draft is left unchanged).
export function finalRunCalls(run: RunDraft): ActionCall[] {
  return run.text === '' ? [...run.calls] : [...run.calls, writeCall(run.text)];
}
