// Asks before the first edit of an accepted recording: editing it sends it back to review (the
// service records that in its review history).
import { useEffect, useRef } from 'react';
import { Modal } from './Modal';

/** Props of {@link ReviewLockDialog}. */
export type ReviewLockDialogProps = {
  onConfirm: () => void;
  onCancel: () => void;
};

// The "edit an accepted recording?" dialog.
export function ReviewLockDialog({ onConfirm, onCancel }: ReviewLockDialogProps) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    cancelRef.current?.focus();
  }, []);
  return (
    <Modal
      titleId="review-lock-title"
      title="Edit an accepted recording?"
      testId="review-lock-dialog"
      isBusy={false}
      onClose={onCancel}
    >
      <div className="modal-body">
        <p>
          A reviewer accepted this recording as it is. If you change it, it goes back to review
          (status <strong>Submitted</strong>) and its review history notes the change.
        </p>
        <footer className="modal-foot">
          <button
            ref={cancelRef}
            type="button"
            className="btn"
            onClick={onCancel}
            data-testid="review-lock-cancel"
          >
            Keep it as accepted
          </button>
          <button
            type="button"
            className="btn btn-primary"
            onClick={onConfirm}
            data-testid="review-lock-confirm"
          >
            Edit and send back to review
          </button>
        </footer>
      </div>
    </Modal>
  );
}
