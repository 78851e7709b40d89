// A failed call or a recording that ended badly, shown plainly: what happened, its code, and
// what to do about it.
import type { ReactNode } from 'react';

/** An error as the pages show it. */
export type ShownError = { code: string; message: string; fix: string | null };

/** Props of {@link ErrorNotice}. */
export type ErrorNoticeProps = {
  error: ShownError;
  /** Heading before the message; default "Something went wrong". */
  title?: ReactNode;
  /** `data-testid` of the notice. */
  testId: string;
  /** Shows a Dismiss button when given. */
  onDismiss?: () => void;
};

// The notice (role=alert, so screen readers read it when it appears).
export function ErrorNotice({ error, title, testId, onDismiss }: ErrorNoticeProps) {
  return (
    <div className="notice notice-bad error-notice" role="alert" data-testid={testId}>
      <div className="error-notice-head">
        <strong>{title ?? 'Something went wrong'}</strong>
        <code className="error-code" data-testid={`${testId}-code`}>
          {error.code}
        </code>
        {onDismiss && (
          <button type="button" className="btn btn-small btn-ghost" onClick={onDismiss}>
            Dismiss
          </button>
        )}
      </div>
      <p className="error-message" data-testid={`${testId}-message`}>
        {error.message}
      </p>
      {error.fix && (
        <p className="error-fix" data-testid={`${testId}-fix`}>
          <strong>Fix:</strong> {error.fix}
        </p>
      )}
    </div>
  );
}
