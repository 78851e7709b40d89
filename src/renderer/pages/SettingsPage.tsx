// Settings page (`#/settings`): the annotator's name, capture (fps, quality, display,
// accessibility, countdown), the desktop app's hotkeys and the upload target; credentials only
// where the host can keep them. Save sends the changed fields; a refused field shows why.
import { useEffect, type ReactNode } from 'react';
import { VIDEO_QUALITIES } from '../../shared/contract';
import { ErrorNotice } from '../components/ErrorNotice';
import {
  settingsSelectors,
  useSettingsStore,
  type SettingsDraft,
  type SettingsField,
} from '../store/settings';
import './recorder-pages.css';

/** Labels of the video quality presets. */
const QUALITY_LABELS: Record<(typeof VIDEO_QUALITIES)[number], string> = {
  standard: 'Standard (smaller files)',
  high: 'High (sharper text, larger files)',
};

/** Draft fields typed as text. */
type TextKey = Exclude<
  keyof SettingsDraft,
  'quality' | 'accessibility' | 'requireLabels' | 'shouldForgetCredentials'
>;

const fieldId = (field: SettingsField) => `settings-${field.replace('.', '-')}`;

type FieldProps = {
  field: SettingsField;
  label: string;
  help?: ReactNode;
  error: string | undefined;
  children: (props: {
    id: string;
    'aria-invalid': boolean;
    'aria-describedby': string | undefined;
  }) => ReactNode;
};

// One labelled form field with its help and error lines.
function Field({ field, label, help, error, children }: FieldProps) {
  const id = fieldId(field);
  const described = [help ? `${id}-help` : null, error ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div className={`field settings-field${error ? ' has-error' : ''}`}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': described || undefined })}
      {help && (
        <p id={`${id}-help`} className="muted small">
          {help}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error" data-testid={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

// The settings page.
export function SettingsPage() {
  const s = useSettingsStore();
  const { load, setField, save, revert } = useSettingsStore.getState();
  const d = s.draft;
  const errors = s.fieldErrors;
  const canChangeLibrary = s.settings?.canChangeLibrary ?? false;
  const text = (key: TextKey) => (e: { target: { value: string } }) =>
    setField(key, e.target.value);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <div className="page settings-page" data-testid="settings-page">
      <header className="page-head">
        <div>
          <h1>Settings</h1>
          <p className="muted">Kept in the library, for every recording made from this app.</p>
        </div>
      </header>

      {s.error && (
        <ErrorNotice
          error={s.error}
          title={s.loadStatus === 'error' ? 'The settings could not be read' : 'Not saved'}
          testId="settings-error"
        />
      )}
      {s.loadStatus === 'loading' && !s.settings && <p className="loading">Loading…</p>}

      {s.settings && (
        <form
          className="settings-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <fieldset className="panel-card">
            <legend>Annotator</legend>
            <Field
              field="annotator"
              label="Your name"
              help="The default annotator of uploads."
              error={errors.annotator}
            >
              {(p) => (
                <input
                  {...p}
                  type="text"
                  className="input"
                  value={d.annotator}
                  onChange={text('annotator')}
                  autoComplete="name"
                />
              )}
            </Field>
          </fieldset>

          <fieldset className="panel-card">
            <legend>Recording</legend>
            <div className="settings-grid">
              <Field field="fps" label="Frames per second" error={errors.fps}>
                {(p) => (
                  <input
                    {...p}
                    type="number"
                    min={1}
                    max={60}
                    className="input"
                    value={d.fps}
                    onChange={text('fps')}
                  />
                )}
              </Field>
              <Field field="quality" label="Video quality" error={errors.quality}>
                {(p) => (
                  <select
                    {...p}
                    className="input"
                    value={d.quality}
                    onChange={(e) =>
                      setField('quality', e.target.value as SettingsDraft['quality'])
                    }
                  >
                    {VIDEO_QUALITIES.map((q) => (
                      <option key={q} value={q}>
                        {QUALITY_LABELS[q]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field
                field="display"
                label="Display"
                help="The X display to record, e.g. :0; empty: the app's own DISPLAY."
                error={errors.display}
              >
                {(p) => (
                  <input
                    {...p}
                    type="text"
                    className="input mono"
                    placeholder=":0"
                    value={d.display}
                    onChange={text('display')}
                  />
                )}
              </Field>
              <Field
                field="countdownS"
                label="Countdown (seconds)"
                help="Time to get ready after pressing Start recording; 0 starts at once."
                error={errors.countdownS}
              >
                {(p) => (
                  <input
                    {...p}
                    type="number"
                    min={0}
                    max={10}
                    className="input"
                    value={d.countdownS}
                    onChange={text('countdownS')}
                  />
                )}
              </Field>
            </div>
            <label className="check-field">
              <input
                type="checkbox"
                checked={d.accessibility}
                onChange={(e) => setField('accessibility', e.target.checked)}
                data-testid="settings-accessibility"
              />
              <span>Capture the accessibility tree (which button or field each step used)</span>
            </label>
            {errors.accessibility && <p className="field-error">{errors.accessibility}</p>}
            <label className="check-field">
              <input
                type="checkbox"
                checked={d.requireLabels}
                onChange={(e) => setField('requireLabels', e.target.checked)}
                data-testid="settings-require-labels"
              />
              <span>Require a label on every step before submit (checks before submit)</span>
            </label>
            {errors.requireLabels && <p className="field-error">{errors.requireLabels}</p>}
          </fieldset>

          <fieldset className="panel-card">
            <legend>Replay (review)</legend>
            <Field
              field="replayDisplay"
              label="Replay display"
              help="X display of a virtual desktop showing the start state, e.g. :99; empty turns replay off."
              error={errors.replayDisplay}
            >
              {(p) => (
                <input
                  {...p}
                  type="text"
                  className="input mono"
                  placeholder=":99"
                  value={d.replayDisplay}
                  onChange={text('replayDisplay')}
                  data-testid="settings-replay-display"
                />
              )}
            </Field>
          </fieldset>

          <fieldset className="panel-card">
            <legend>Hotkeys (desktop app)</legend>
            <div className="settings-grid">
              <Field
                field="hotkeys.startStop"
                label="Start / stop"
                help="A key chord such as ctrl+alt+shift+r."
                error={errors['hotkeys.startStop']}
              >
                {(p) => (
                  <input
                    {...p}
                    type="text"
                    className="input mono"
                    value={d.hotkeyStartStop}
                    onChange={text('hotkeyStartStop')}
                  />
                )}
              </Field>
              <Field field="hotkeys.pause" label="Pause / resume" error={errors['hotkeys.pause']}>
                {(p) => (
                  <input
                    {...p}
                    type="text"
                    className="input mono"
                    value={d.hotkeyPause}
                    onChange={text('hotkeyPause')}
                  />
                )}
              </Field>
            </div>
          </fieldset>

          <fieldset className="panel-card">
            <legend>Upload</legend>
            <div className="settings-grid">
              <Field
                field="uploadTarget"
                label="Target"
                help="s3://BUCKET/PREFIX; empty: none saved."
                error={errors.uploadTarget}
              >
                {(p) => (
                  <input
                    {...p}
                    type="text"
                    className="input mono"
                    placeholder="s3://bucket/prefix"
                    value={d.uploadTarget}
                    onChange={text('uploadTarget')}
                  />
                )}
              </Field>
              <Field
                field="uploadEndpoint"
                label="Endpoint"
                help="The S3 endpoint URL; empty: AWS."
                error={errors.uploadEndpoint}
              >
                {(p) => (
                  <input
                    {...p}
                    type="url"
                    className="input mono"
                    placeholder="https://s3.example.org"
                    value={d.uploadEndpoint}
                    onChange={text('uploadEndpoint')}
                  />
                )}
              </Field>
            </div>
            <Field
              field="libraryDir"
              label="Library folder"
              help={
                canChangeLibrary
                  ? 'Where recordings are kept; the app opens the new folder when it next starts.'
                  : 'Where recordings are kept. This server serves the library it was started with (serve --library DIR).'
              }
              error={errors.libraryDir}
            >
              {(p) => (
                <input
                  {...p}
                  type="text"
                  className="input mono"
                  value={d.libraryDir}
                  readOnly={!canChangeLibrary}
                  onChange={text('libraryDir')}
                />
              )}
            </Field>
            {s.settings.canStoreCredentials ? (
              <div className="credentials" data-testid="settings-credentials">
                <p className="muted small">
                  {s.settings.hasUploadCredentials
                    ? 'Credentials are saved in the system’s secret store. Type new ones to replace them.'
                    : 'No credentials saved. They are kept in the system’s secret store.'}
                </p>
                <div className="settings-grid">
                  <Field
                    field="uploadCredentials"
                    label="Access key id"
                    error={errors.uploadCredentials}
                  >
                    {(p) => (
                      <input
                        {...p}
                        type="text"
                        className="input mono"
                        autoComplete="off"
                        value={d.accessKeyId}
                        onChange={text('accessKeyId')}
                      />
                    )}
                  </Field>
                  <div className="field settings-field">
                    <label htmlFor="settings-secret" className="field-label">
                      Secret access key
                    </label>
                    <input
                      id="settings-secret"
                      type="password"
                      className="input mono"
                      autoComplete="off"
                      value={d.secretAccessKey}
                      onChange={text('secretAccessKey')}
                    />
                  </div>
                </div>
                {s.settings.hasUploadCredentials && (
                  <label className="check-field">
                    <input
                      type="checkbox"
                      checked={d.shouldForgetCredentials}
                      onChange={(e) => setField('shouldForgetCredentials', e.target.checked)}
                    />
                    <span>Forget the saved credentials</span>
                  </label>
                )}
              </div>
            ) : (
              <p className="muted small" data-testid="settings-no-credentials">
                This host cannot keep upload credentials (the browser host has no secret store).
                Give them to <code>cua-annotator upload</code> in its environment, or save them in
                the desktop app.
              </p>
            )}
          </fieldset>

          <div className="toolbar settings-actions">
            <button
              type="submit"
              className="btn btn-primary"
              disabled={!settingsSelectors.canSave(s)}
              data-testid="settings-save"
            >
              {s.saveStatus === 'saving' ? 'Saving…' : 'Save'}
            </button>
            <button
              type="button"
              className="btn"
              onClick={revert}
              disabled={s.saveStatus === 'saving' || !settingsSelectors.isDirty(s)}
            >
              Revert
            </button>
            <span role="status" className="muted" data-testid="settings-status">
              {s.saveStatus === 'saved' ? 'Saved.' : ''}
            </span>
          </div>
        </form>
      )}
    </div>
  );
}
