// @vitest-environment happy-dom
// The Record page as an annotator drives it: the task, Start, the live status the service
// pushes, pause / resume / stop, discard with its confirmation, a refused start, the countdown.
// The page, its stores and hooks are real; only the api client is fake (a recorder service that
// moves one status along, as in tests/renderer/store/recorder-store.test.ts).
import '../helpers/dom';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecorderStatusDto } from '../../../src/shared/contract';
import { RecordPage } from '../../../src/renderer/pages/RecordPage';
import { RECORDING_TITLE } from '../../../src/renderer/hooks/use-recorder-status';
import { COUNTDOWN_TICK_MS } from '../../../src/renderer/store/recorder';
import { FakeFailure, flush, installFakeApi } from '../helpers/fake-api';

function status(patch: Partial<RecorderStatusDto> = {}): RecorderStatusDto {
  return {
    state: 'idle',
    recordingId: null,
    task: null,
    elapsedMs: 0,
    frames: 0,
    droppedFrames: 0,
    events: 0,
    accessibility: 'ok',
    warnings: [],
    lastRecordingId: null,
    error: null,
    ...patch,
  };
}

const running = (patch: Partial<RecorderStatusDto> = {}) =>
  status({ state: 'recording', recordingId: 'rec-9', task: 'Turn on night light', ...patch });

/** A fake recorder service starting from `first`; `refuseStart` makes recorder:start fail. */
function fakeRecorder(first = status(), settings = { countdownS: 0 }) {
  const api = installFakeApi();
  let current = first;
  let refuseStart: FakeFailure | null = null;
  api.on('recorder:get-status', () => current);
  api.on('settings:get', () => settings);
  api.on('recorder:start', (p) => {
    if (refuseStart) {
      throw refuseStart;
    }
    current = running({ task: (p as { task: string }).task });
    return current;
  });
  api.on('recorder:pause', () => (current = { ...current, state: 'paused' }));
  api.on('recorder:resume', () => (current = { ...current, state: 'recording' }));
  api.on('recorder:stop', () => (current = status({ lastRecordingId: current.recordingId })));
  api.on('recorder:discard', () => (current = status()));
  const sent = (method: string) => api.calls.filter((c) => c.method === method);
  return {
    api,
    sent,
    refuseStart: (f: FakeFailure | null) => (refuseStart = f),
  };
}

/** Lets answers arrive and React render them. */
async function settle() {
  await act(async () => {
    await flush();
  });
}

async function renderPage() {
  render(<RecordPage />);
  await settle();
}

const startButton = () => screen.getByRole('button', { name: 'Start recording' });
const taskField = () => screen.getByRole('textbox', { name: 'Task' });

afterEach(() => {
  vi.useRealTimers();
  window.location.hash = '';
});

describe('RecordPage', () => {
  // Catches: Start offered for an empty or blank task (the service refuses it, or worse a
  // recording nobody can label), the task sent with its stray spaces, and a page that does not
  // follow the status the service pushes (frames, dropped frames, accessibility, warnings).
  it('starts only with a task, then shows the live status the recorder pushes', async () => {
    const user = userEvent.setup();
    const recorder = fakeRecorder();
    await renderPage();
    expect(screen.getByTestId('record-state').textContent).toBe('Not recording');
    expect(startButton()).toHaveProperty('disabled', true);
    expect(document.activeElement).toBe(taskField());

    await user.type(taskField(), '   ');
    expect(startButton()).toHaveProperty('disabled', true);
    await user.type(taskField(), 'Turn on night light ');
    expect(startButton()).toHaveProperty('disabled', false);
    await user.click(startButton());
    await settle();

    expect(recorder.sent('recorder:start').map((c) => c.payload)).toEqual([
      { task: 'Turn on night light' },
    ]);
    expect(screen.getByTestId('record-state').textContent).toBe('Recording');
    expect(screen.queryByRole('textbox', { name: 'Task' })).toBeNull();
    const live = within(screen.getByRole('region', { name: 'Recording status' }));
    expect(live.getByTestId('record-live-task').textContent).toBe('Turn on night light');
    expect(document.title).toBe(RECORDING_TITLE);

    act(() =>
      recorder.api.emit(
        'recorder:status-changed',
        running({
          frames: 1234,
          droppedFrames: 3,
          events: 56,
          accessibility: 'unavailable',
          warnings: ['Less than 1 GB of disk space left.'],
        }),
      ),
    );
    expect(live.getByTestId('record-frames').textContent).toBe((1234).toLocaleString());
    expect(live.getByTestId('record-dropped').textContent).toBe('3');
    expect(live.getByTestId('record-dropped').parentElement?.className).toBe('is-warn');
    expect(live.getByTestId('record-events').textContent).toBe('56');
    expect(live.getByTestId('record-accessibility').textContent).toBe(
      'Unavailable for the focused app',
    );
    expect(
      within(live.getByRole('list', { name: 'Warnings' })).getAllByRole('listitem'),
    ).toHaveLength(1);
  });

  // Catches: a reload during a paused recording showing the start form (or Pause instead of
  // Resume), and a stop that does not open the recording it saved.
  it('picks up a paused recording, resumes and stops it, then opens the saved recording', async () => {
    const user = userEvent.setup();
    const recorder = fakeRecorder(running({ state: 'paused', elapsedMs: 65_000 }));
    await renderPage();
    expect(screen.getByTestId('record-state').textContent).toBe('Paused');
    expect(screen.queryByRole('textbox', { name: 'Task' })).toBeNull();
    expect(screen.getByTestId('record-elapsed').textContent).toBe('1:05');
    expect(screen.queryByRole('button', { name: 'Pause' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Resume' }));
    await settle();
    expect(screen.getByTestId('record-state').textContent).toBe('Recording');
    expect(screen.getByRole('button', { name: 'Pause' })).toHaveProperty('disabled', false);

    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await settle();
    expect(
      recorder.api
        .methods()
        .filter((m) => m.startsWith('recorder:') && m !== 'recorder:get-status'),
    ).toEqual(['recorder:resume', 'recorder:stop']);
    expect(window.location.hash).toBe('#/recording/rec-9');
  });

  // Catches: Discard throwing the recording away without asking, "Keep recording" discarding
  // anyway, and a discard that leaves no word of what happened.
  it('discards only after the confirmation', async () => {
    const user = userEvent.setup();
    const recorder = fakeRecorder(running());
    await renderPage();

    await user.click(screen.getByRole('button', { name: 'Discard' }));
    const dialog = screen.getByRole('dialog', { name: 'Discard this recording?' });
    expect(dialog.textContent).toContain('“Turn on night light” is deleted');
    await user.click(within(dialog).getByRole('button', { name: 'Keep recording' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    await settle();
    expect(recorder.sent('recorder:discard')).toEqual([]);
    expect(screen.getByTestId('record-state').textContent).toBe('Recording');

    await user.click(screen.getByRole('button', { name: 'Discard' }));
    await user.click(screen.getByRole('button', { name: 'Discard recording' }));
    await settle();
    expect(recorder.sent('recorder:discard')).toHaveLength(1);
    expect(screen.getByRole('status').textContent).toBe(
      'The recording was discarded: nothing of it was kept.',
    );
    expect(screen.getByTestId('record-state').textContent).toBe('Not recording');
    expect(window.location.hash).toBe('');
  });

  // Catches: a refused start that says nothing (or hides its fix), and a Start button stuck
  // on "Starting…" after the refusal.
  it('shows a refused start with its code and fix, and lets the user try again', async () => {
    const user = userEvent.setup();
    const recorder = fakeRecorder();
    recorder.refuseStart(
      new FakeFailure('FFMPEG_NOT_FOUND', 'ffmpeg was not found.', undefined, 'Install ffmpeg.'),
    );
    await renderPage();
    await user.type(taskField(), 'Open the settings');
    await user.click(startButton());
    await settle();

    const notice = within(screen.getByTestId('record-error'));
    expect(notice.getByText('The recorder refused')).toBeTruthy();
    expect(notice.getByTestId('record-error-code').textContent).toBe('FFMPEG_NOT_FOUND');
    expect(notice.getByTestId('record-error-message').textContent).toBe('ffmpeg was not found.');
    expect(notice.getByTestId('record-error-fix').textContent).toBe('Fix: Install ffmpeg.');
    expect(startButton()).toHaveProperty('disabled', false);
    expect(taskField()).toHaveProperty('value', 'Open the settings');

    recorder.refuseStart(null);
    await user.click(notice.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('record-error')).toBeNull();
    await user.click(startButton());
    await settle();
    expect(screen.getByTestId('record-state').textContent).toBe('Recording');
  });

  // Catches: a countdown that, cancelled, still starts the recording when it runs out.
  it('counts down before starting, and a cancelled countdown starts nothing', async () => {
    const recorder = fakeRecorder(status(), { countdownS: 3 });
    await renderPage();
    expect(screen.getByText(/Starts after a 3 s countdown/)).toBeTruthy();
    fireEvent.change(taskField(), { target: { value: 'Open the settings' } });
    vi.useFakeTimers();

    fireEvent.click(startButton());
    expect(screen.getByRole('timer').textContent).toBe('3');
    act(() => {
      vi.advanceTimersByTime(COUNTDOWN_TICK_MS);
    });
    expect(screen.getByRole('timer').textContent).toBe('2');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('timer')).toBeNull();
    await act(async () => {
      vi.advanceTimersByTime(5 * COUNTDOWN_TICK_MS);
      await flush();
    });
    expect(recorder.sent('recorder:start')).toEqual([]);
    expect(screen.getByTestId('record-state').textContent).toBe('Not recording');

    // not cancelled: it starts when the countdown runs out
    fireEvent.click(startButton());
    await act(async () => {
      vi.advanceTimersByTime(3 * COUNTDOWN_TICK_MS);
      await flush();
    });
    expect(recorder.sent('recorder:start').map((c) => c.payload)).toEqual([
      { task: 'Open the settings' },
    ]);
    expect(screen.getByTestId('record-state').textContent).toBe('Recording');
  });
});
