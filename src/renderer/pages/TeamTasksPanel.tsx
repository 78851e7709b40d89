// "Team tasks" on the Record page (docs/team-mode.md §16): when this library is signed in to a
// team hub, the hub's open tasks for this machine's OS (fewest recordings first); "Record this"
// claims one (team:claim-task) and puts its instruction in the Task field; the next recording
// then carries the task's id into its submission and exports.
import { useCallback, useEffect, useState } from 'react';
import type { ApiMethods } from '../../shared/contract';
import { getApiClient } from '../api';
import { ErrorNotice, type ShownError } from '../components/ErrorNotice';
import { formatDateTime } from '../lib/time';
import { useRecorderStore } from '../store/recorder';
import { shownError, useTeamStore } from '../store/team';

type TeamTasks = ApiMethods['team:tasks']['output'];

// The panel (nothing while the library is not signed in to a team).
export function TeamTasksPanel({ disabled }: { disabled: boolean }) {
  const signedIn = useTeamStore((s) => s.status?.signedIn === true);
  const teamTask = useRecorderStore((s) => s.teamTask);
  const [list, setList] = useState<TeamTasks | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [claiming, setClaiming] = useState<number | null>(null);

  useEffect(() => {
    if (useTeamStore.getState().statusLoad === 'idle') {
      void useTeamStore.getState().loadStatus();
    }
  }, []);

  // bumped to list again (after a claim, or Refresh)
  const [reloads, setReloads] = useState(0);
  const load = useCallback(() => setReloads((n) => n + 1), []);

  useEffect(() => {
    if (!signedIn) {
      return;
    }
    let live = true;
    const list = async () => {
      try {
        const r = await getApiClient().call('team:tasks', {});
        if (live) {
          setList(r);
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
  }, [signedIn, reloads]);

  if (!signedIn) {
    return null;
  }

  const claim = async (id: number) => {
    setClaiming(id);
    setError(null);
    try {
      const t = await getApiClient().call('team:claim-task', { id });
      useRecorderStore.getState().setTeamTask(t);
    } catch (e) {
      setError(shownError(e));
    } finally {
      setClaiming(null);
      load();
    }
  };

  return (
    <section className="panel-card" aria-label="Team tasks" data-testid="team-tasks">
      <div className="toolbar">
        <h2>Team tasks</h2>
        <span className="muted small">
          {list ? `open tasks for ${list.platform}, fewest recordings first` : 'Loading…'}
        </span>
        <button type="button" className="btn btn-small" onClick={load}>
          Refresh
        </button>
      </div>
      {teamTask && (
        <p className="notice" role="status" data-testid="team-task-chosen">
          Recording for task {teamTask.id} (yours until {formatDateTime(teamTask.expiresAtMs)}).{' '}
          <button
            type="button"
            className="btn btn-small btn-ghost"
            onClick={() => useRecorderStore.getState().setTeamTask(null)}
            disabled={disabled}
          >
            Not for a task
          </button>
        </p>
      )}
      {error && (
        <ErrorNotice error={error} testId="team-tasks-error" onDismiss={() => setError(null)} />
      )}
      {list?.hubError && (
        <ErrorNotice
          error={{ ...list.hubError, fix: list.hubError.fix ?? null }}
          title="The hub did not answer"
          testId="team-tasks-hub-error"
        />
      )}
      {list && !list.hubError && list.tasks.length === 0 && (
        <p className="muted">No open tasks for {list.platform} on the hub.</p>
      )}
      {list && list.tasks.length > 0 && (
        <ul className="team-task-list">
          {list.tasks.map((t) => {
            const mine = t.myClaimExpiresAtMs !== null;
            return (
              <li key={t.id} data-testid={`team-task-${t.id}`}>
                <span className="mono">{t.id}</span> {t.instruction}{' '}
                <span className="muted small">
                  {t.recorded} recorded
                  {t.claimedBy.length > 0 ? ` · claimed by ${t.claimedBy.join(', ')}` : ''}
                </span>{' '}
                <button
                  type="button"
                  className="btn btn-small"
                  disabled={disabled || claiming !== null || teamTask?.id === t.id}
                  onClick={() => void claim(t.id)}
                  data-testid="team-task-record"
                >
                  {claiming === t.id ? 'Claiming…' : mine ? 'Record this (yours)' : 'Record this'}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
