// The frame every dialog shares: backdrop (click outside closes), Escape, title and close button.
import type { ReactNode } from 'react';

/** Props of {@link Modal}. */
export type ModalProps = {
  /** Id of the title element (aria-labelledby). */
  titleId: string;
  title: ReactNode;
  /** `data-testid` of the dialog element. */
  testId: string;
  /** While true, closing is refused (a run is in progress). */
  isBusy: boolean;
  onClose: () => void;
  children: ReactNode;
};

// A modal dialog around `children` (the dialog's form).
export function Modal({ titleId, title, testId, isBusy, onClose, children }: ModalProps) {
  const close = () => {
    if (!isBusy) {
      onClose();
    }
  };
  return (
    <div
      className="modal-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) {
          close();
        }
      }}
    >
      <div
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={testId}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            close();
          }
        }}
      >
        <header className="modal-head">
          <h2 id={titleId}>{title}</h2>
          <button
            type="button"
            className="btn btn-ghost"
            onClick={close}
            disabled={isBusy}
            aria-label="Close"
          >
            ✕
          </button>
        </header>
        {children}
      </div>
    </div>
  );
}
