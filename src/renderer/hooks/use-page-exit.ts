// Nothing typed is lost when the page goes away: drafts are sent on `visibilitychange` (hidden)
// and `pagehide` (the transport sends with keepalive), and `beforeunload` warns while edits are
// not yet saved.
import { useEffect } from 'react';
import { reviewSelectors, useReviewStore } from '../store/review';

// Installs the page-exit flush and the unsaved-changes warning while mounted.
export function usePageExitFlush(): void {
  useEffect(() => {
    const onHidden = () => {
      if (document.visibilityState === 'hidden') {
        useReviewStore.getState().flushDrafts();
      }
    };
    const onPageHide = () => useReviewStore.getState().flushOnExit();
    const onPageShow = (e: PageTransitionEvent) => {
      if (e.persisted) {
        useReviewStore.getState().resumeAfterExit();
      }
    };
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (reviewSelectors.hasUnsavedWork(useReviewStore.getState())) {
        // start saving now; the browser asks the user whether to leave meanwhile
        useReviewStore.getState().flushDrafts();
        e.preventDefault();
        // older browsers show the prompt only when returnValue is set
        e.returnValue = '';
      }
    };
    document.addEventListener('visibilitychange', onHidden);
    window.addEventListener('pagehide', onPageHide);
    window.addEventListener('pageshow', onPageShow);
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      document.removeEventListener('visibilitychange', onHidden);
      window.removeEventListener('pagehide', onPageHide);
      window.removeEventListener('pageshow', onPageShow);
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, []);
}
