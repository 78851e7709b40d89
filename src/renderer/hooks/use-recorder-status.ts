// Keeps the recorder store in step with the service while a page showing it is mounted: the
// pushed status events, a first load, a re-read when the page becomes visible again and every
// few seconds while a recording runs (events sent while the event stream was reconnecting are
// otherwise lost), and the window title while recording.
import { useEffect } from 'react';
import { useApiEvent } from './use-api-event';
import { recorderSelectors, useRecorderStore } from '../store/recorder';

/** Title of a window whose page shows a recording under way (the desktop app finds it by it). */
export const RECORDING_TITLE = '● Recording — cua-annotator';
/** Re-read of the status while a recording runs, ms. */
const REFRESH_MS = 5000;

// Subscribes the recorder store to the service for the caller's lifetime.
export function useRecorderStatus(): void {
  useApiEvent('recorder:status-changed', (status) => useRecorderStore.getState().onStatus(status));
  useEffect(() => {
    void useRecorderStore.getState().load();
    const onVisible = () => {
      if (document.visibilityState === 'visible') {
        void useRecorderStore.getState().refresh();
      }
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, []);
  const isActive = useRecorderStore(recorderSelectors.isActive);
  const isStarting = useRecorderStore((s) => s.busy === 'start' || s.countdownLeft !== null);
  useEffect(() => {
    if (!isActive) {
      return;
    }
    const timer = setInterval(() => void useRecorderStore.getState().refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [isActive]);
  useEffect(() => {
    if (!isActive && !isStarting) {
      return;
    }
    const before = document.title;
    document.title = RECORDING_TITLE;
    return () => {
      document.title = before;
    };
  }, [isActive, isStarting]);
}
