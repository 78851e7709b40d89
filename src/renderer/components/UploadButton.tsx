// The Upload button: the checks before upload first (docs/quality.md §3), then the upload dialog
// for the given recordings.
import { useCheckGateStore } from '../store/check';
import { useUploadsStore } from '../store/uploads';

/** Props of {@link UploadButton}. */
export type UploadButtonProps = {
  /** Recordings to upload, read when clicked. */
  getIds: () => string[];
  /** Disabled (e.g. nothing selected). */
  disabled?: boolean;
  /** Button text; default `Upload`. */
  label?: string;
  /** Tooltip. */
  title?: string;
};

// An Upload button that opens the upload dialog (rendered once by the app shell).
export function UploadButton({ getIds, disabled = false, label, title }: UploadButtonProps) {
  return (
    <button
      type="button"
      className="btn"
      disabled={disabled}
      title={title ?? 'Upload to S3-compatible storage'}
      onClick={() => {
        const ids = getIds();
        void useCheckGateStore
          .getState()
          .request(ids, 'upload', () => void useUploadsStore.getState().openDialog(ids));
      }}
      data-testid="upload-button"
    >
      <span aria-hidden="true">⇪</span> {label ?? 'Upload'}
    </button>
  );
}
