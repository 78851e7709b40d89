// Tasks (docs/team-mode.md §16): annotators see the open tasks of a platform, fewest recordings
// first, and claim, release or report one; admins import a task file with a preview first (every
// bad line and duplicate named, nothing written until "Import") and close or reopen tasks. The
// page calls the hub through the `call` it is given (the hub client of the page's session).
import { useCallback, useEffect, useState } from 'react';
import type {
  HubInput,
  HubMethod,
  HubOutput,
  HubRole,
  HubTask,
} from '../../../../shared/contract/hub';
import {
  TASK_PLATFORMS,
  taskFileFormatOf,
  type TaskFileFormat,
  type TaskPlatform,
} from '../../../../shared/tasks-file';
import { shownError } from '../../../api/api-error';
import { ErrorNotice, type ShownError } from '../../../components/ErrorNotice';
import { formatDateTime } from '../../../lib/time';

/** Calls one hub method (the page's hub client). */
export type HubCall = <M extends HubMethod>(method: M, input: HubInput<M>) => Promise<HubOutput<M>>;

/** Props of {@link TasksPage}. */
export type TasksPageProps = {
  call: HubCall;
  /** The signed-in account's roles: annotators claim, admins import and close. */
  roles: readonly HubRole[];
};

type StatusFilter = 'open' | 'closed' | 'infeasible' | 'all';
type TaskAction = 'claim' | 'release' | 'infeasible' | 'close' | 'reopen';

// The guess of the browser's OS, the default platform filter.
function browserPlatform(): TaskPlatform {
  const p = globalThis.navigator?.platform ?? '';
  return /^Win/i.test(p) ? 'win' : /^Mac/i.test(p) ? 'mac' : 'ubuntu';
}

type Preview = {
  fileName: string;
  text: string;
  format: TaskFileFormat;
  report: HubOutput<'tasks:import'>;
};

function ImportPanel({ call, onImported }: { call: HubCall; onImported: () => void }) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [done, setDone] = useState<HubOutput<'tasks:import'> | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);

  const choose = async (file: File | undefined) => {
    setPreview(null);
    setDone(null);
    setError(null);
    if (!file) {
      return;
    }
    const format = taskFileFormatOf(file.name);
    if (!format) {
      setError({
        code: 'USAGE',
        message: `cannot tell the format of ${file.name}`,
        fix: 'Choose a .jsonl or .csv file.',
      });
      return;
    }
    setBusy(true);
    try {
      const text = await file.text();
      const report = await call('tasks:import', { text, format, dryRun: true });
      setPreview({ fileName: file.name, text, format, report });
    } catch (e) {
      setError(shownError(e));
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!preview) {
      return;
    }
    setBusy(true);
    try {
      const report = await call('tasks:import', {
        text: preview.text,
        format: preview.format,
        dryRun: false,
        // the preview showed the bad lines: add the good ones
        confirm: true,
      });
      setDone(report);
      setPreview(null);
      onImported();
    } catch (e) {
      setError(shownError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="hub-section" aria-label="Import tasks" data-testid="tasks-import">
      <h2>Import tasks</h2>
      <p className="muted">
        A JSONL file (one object per line) or a CSV file with a header row: instruction (required),
        description, domain, app, url, platform ({TASK_PLATFORMS.join(', ')}), target, tags. The
        preview checks every line; nothing is written until you import.
      </p>
      <input
        type="file"
        accept=".jsonl,.ndjson,.json,.csv"
        aria-label="Task file"
        data-testid="tasks-import-file"
        disabled={busy}
        onChange={(ev) => void choose(ev.currentTarget.files?.[0])}
      />
      {error && (
        <ErrorNotice error={error} testId="tasks-import-error" onDismiss={() => setError(null)} />
      )}
      {preview && (
        <div data-testid="tasks-import-preview">
          <p>
            {preview.fileName}:{' '}
            <strong data-testid="tasks-preview-added">{preview.report.added}</strong> task(s) to
            add, <span data-testid="tasks-preview-duplicates">{preview.report.duplicates}</span>{' '}
            duplicate(s),{' '}
            <span data-testid="tasks-preview-errors">{preview.report.errors.length}</span> bad
            line(s) left out.
          </p>
          {(preview.report.errors.length > 0 || preview.report.duplicateLines.length > 0) && (
            <table className="hub-table" aria-label="Lines left out">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {[
                  ...preview.report.errors.map((e) => ({ line: e.line, why: e.message })),
                  ...preview.report.duplicateLines.map((d) => ({
                    line: d.line,
                    why:
                      d.of === null
                        ? 'duplicate of a task on the hub'
                        : `duplicate of line ${d.of}`,
                  })),
                ]
                  .sort((a, b) => a.line - b.line)
                  .map((r) => (
                    <tr key={r.line} data-testid={`tasks-preview-line-${r.line}`}>
                      <td>{r.line}</td>
                      <td>{r.why}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          )}
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy || preview.report.added === 0}
            onClick={() => void confirm()}
            data-testid="tasks-import-confirm"
          >
            Import {preview.report.added} task(s)
          </button>{' '}
          <button type="button" className="btn" disabled={busy} onClick={() => setPreview(null)}>
            Cancel
          </button>
        </div>
      )}
      {done && (
        <p className="notice" role="status" data-testid="tasks-import-done">
          Added {done.added} task(s); {done.duplicates} duplicate(s) and {done.errors.length} bad
          line(s) left out.
        </p>
      )}
    </section>
  );
}

function TaskRow({
  task,
  canClaim,
  isAdmin,
  onAction,
}: {
  task: HubTask;
  canClaim: boolean;
  isAdmin: boolean;
  onAction: (action: TaskAction, t: HubTask, reason?: string) => void;
}) {
  const mine = task.myClaimExpiresAtMs !== null;
  // the "can't be done" report being written (null: not open)
  const [reason, setReason] = useState<string | null>(null);
  return (
    <tr data-testid={`task-${task.id}`}>
      <td className="mono">{task.id}</td>
      <td>
        <div>{task.instruction}</div>
        {(task.app || task.domain || task.tags.length > 0) && (
          <div className="muted">
            {[task.domain, task.app, ...task.tags].filter(Boolean).join(' · ')}
          </div>
        )}
      </td>
      <td>{task.platform}</td>
      <td>
        <span className={`chip hub-status-${task.status}`} data-testid="task-status">
          {task.status}
        </span>
      </td>
      <td data-testid="task-progress">
        {task.accepted}/{task.target} accepted, {task.recorded} recorded
      </td>
      <td data-testid="task-claimed-by">
        {task.claimedBy.join(', ') || '—'}
        {mine && (
          <div className="muted">yours until {formatDateTime(task.myClaimExpiresAtMs!)}</div>
        )}
      </td>
      <td>
        {canClaim && task.status === 'open' && !mine && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => onAction('claim', task)}
            data-testid="task-claim"
          >
            Claim
          </button>
        )}
        {canClaim && mine && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => onAction('release', task)}
            data-testid="task-release"
          >
            Release
          </button>
        )}
        {canClaim && task.status === 'open' && reason === null && (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            onClick={() => setReason('')}
            data-testid="task-infeasible"
          >
            Can’t be done
          </button>
        )}
        {reason !== null && (
          <form
            onSubmit={(ev) => {
              ev.preventDefault();
              onAction('infeasible', task, reason.trim());
              setReason(null);
            }}
          >
            <input
              type="text"
              value={reason}
              required
              aria-label={`Why task ${task.id} cannot be done`}
              placeholder="Why can it not be done?"
              onChange={(ev) => setReason(ev.currentTarget.value)}
              data-testid="task-infeasible-reason"
            />{' '}
            <button
              type="submit"
              className="btn btn-small"
              disabled={reason.trim() === ''}
              data-testid="task-infeasible-send"
            >
              Report
            </button>{' '}
            <button type="button" className="btn btn-small" onClick={() => setReason(null)}>
              Cancel
            </button>
          </form>
        )}
        {isAdmin && task.status === 'open' && (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            onClick={() => onAction('close', task)}
            data-testid="task-close"
          >
            Close
          </button>
        )}
        {isAdmin && task.status !== 'open' && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() => onAction('reopen', task)}
            data-testid="task-reopen"
          >
            Reopen
          </button>
        )}
      </td>
    </tr>
  );
}

// The page.
export function TasksPage({ call, roles }: TasksPageProps) {
  const isAdmin = roles.includes('admin');
  const canClaim = roles.includes('annotator');
  const [platform, setPlatform] = useState<TaskPlatform | 'all'>(
    canClaim ? browserPlatform() : 'all',
  );
  const [status, setStatus] = useState<StatusFilter>(isAdmin && !canClaim ? 'all' : 'open');
  const [tasks, setTasks] = useState<HubTask[] | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [note, setNote] = useState<string | null>(null);

  // bumped to list again (after an action, or Refresh)
  const [reloads, setReloads] = useState(0);
  const load = useCallback(() => setReloads((n) => n + 1), []);

  useEffect(() => {
    let live = true;
    const list = async () => {
      try {
        const r = await call('tasks:list', { ...(platform === 'all' ? {} : { platform }), status });
        if (live) {
          setTasks(r.tasks);
          setError(null);
        }
      } catch (e) {
        if (live) {
          setError(shownError(e));
        }
      }
    };
    void list();
    return () => {
      live = false;
    };
  }, [call, platform, status, reloads]);

  const act = async (action: TaskAction, t: HubTask, reason = '') => {
    setNote(null);
    try {
      if (action === 'claim') {
        const r = await call('tasks:claim', { id: t.id });
        setNote(
          r.claimed
            ? `Task ${t.id} is yours until ${formatDateTime(r.expiresAtMs!)}: record it in the app, or with cua-annotator record --task-id ${t.id}.`
            : `Task ${t.id} is held by ${r.task.claimedBy.join(', ')}: pick another one.`,
        );
      } else if (action === 'release') {
        await call('tasks:release', { id: t.id });
      } else if (action === 'infeasible') {
        const r = await call('tasks:infeasible', { id: t.id, reason });
        setNote(
          r.setAside
            ? `Task ${t.id} is set aside for an admin (${r.reports} reports).`
            : `Reported (${r.reports} report(s) so far).`,
        );
      } else if (action === 'close') {
        await call('tasks:close', { id: t.id });
      } else {
        await call('tasks:reopen', { id: t.id });
      }
      load();
    } catch (e) {
      setError(shownError(e));
    }
  };

  return (
    <main className="page hub-page" data-testid="hub-tasks">
      <header className="page-head">
        <div>
          <h1>Tasks</h1>
          <p className="muted" data-testid="hub-tasks-count">
            {tasks === null ? 'Loading…' : `${tasks.length} task${tasks.length === 1 ? '' : 's'}`}
          </p>
        </div>
        <label>
          Platform{' '}
          <select
            value={platform}
            onChange={(e) => setPlatform(e.currentTarget.value as TaskPlatform | 'all')}
            data-testid="tasks-platform"
          >
            <option value="all">all</option>
            {TASK_PLATFORMS.filter((p) => p !== 'any').map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status{' '}
          <select
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as StatusFilter)}
            data-testid="tasks-status"
          >
            {(['open', 'closed', 'infeasible', 'all'] as const).map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="btn" onClick={load}>
          Refresh
        </button>
      </header>
      {error && (
        <ErrorNotice error={error} testId="hub-tasks-error" onDismiss={() => setError(null)} />
      )}
      {note && (
        <p className="notice" role="status" data-testid="hub-tasks-note">
          {note}
        </p>
      )}
      {isAdmin && <ImportPanel call={call} onImported={load} />}
      {tasks !== null && tasks.length === 0 && (
        <p className="muted">No {status === 'all' ? '' : `${status} `}tasks here.</p>
      )}
      {tasks !== null && tasks.length > 0 && (
        <table className="hub-table" aria-label="Tasks">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Instruction</th>
              <th scope="col">Platform</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Claimed by</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tasks.map((t) => (
              <TaskRow
                key={t.id}
                task={t}
                canClaim={canClaim}
                isAdmin={isAdmin}
                onAction={(a, task, reason) => void act(a, task, reason)}
              />
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
