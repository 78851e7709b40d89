// The Upload button: present, disabled until a later issue wires uploads.

const UPLOAD_TOOLTIP = 'Upload is not available yet: it arrives with the upload queue.';

// A disabled Upload button whose tooltip says why (the wrapper carries the tooltip because
// disabled buttons get no pointer events in some browsers).
export function UploadButton() {
  return (
    <span className="tooltip-wrap" title={UPLOAD_TOOLTIP} tabIndex={0} aria-label={UPLOAD_TOOLTIP}>
      <button
        type="button"
        className="btn"
        disabled
        aria-disabled="true"
        data-testid="upload-button"
      >
        <span aria-hidden="true">⇪</span> Upload
      </button>
    </span>
  );
}
