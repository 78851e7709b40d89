// @vitest-environment happy-dom
// The Dashboard's Jobs section with a scripted hub (the section takes the hub's `call`): a build
// under way shows its progress and moves on at the next reading; a dead letter's Retry calls
// jobs:retry with its id; a refused read shows the hub's error with its fix.
import '../../helpers/dom';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../../src/renderer/api/api-error';
import { JOBS_REFRESH_MS, JobsSection } from '../../../../src/renderer/pages/team/hub/JobsSection';
import type { HubCall } from '../../../../src/renderer/pages/team/hub/TasksPage';
import type { HubDatasetBuild } from '../../../../src/shared/contract/hub';

function build(patch: Partial<HubDatasetBuild>): HubDatasetBuild {
  return {
    build: 7,
    status: 'running',
    format: 'agentnet-jsonl',
    filters: {},
    submissions: 50,
    done: 0,
    failed: 0,
    manifest: null,
    prefix: '_builds/7/out/',
    error: null,
    createdBy: 'boss',
    createdAtMs: Date.UTC(2026, 11, 7, 12, 0, 0),
    finishedAtMs: null,
    ...patch,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('JobsSection', () => {
  it('shows a build’s progress and the next reading’s; Retry sends the dead letter’s id', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let done = 10;
    const calls: { method: string; input: unknown }[] = [];
    const call = (async (method: string, input: unknown) => {
      calls.push({ method, input });
      await Promise.resolve();
      switch (method) {
        case 'jobs:status':
          return {
            queues: [{ name: 'build-item', waiting: 40 - done, active: 2, done, failed: 1 }],
          };
        case 'jobs:dead':
          return {
            jobs: [
              {
                id: '6f1c2a34-1b2c-4d5e-8f90-0123456789ab',
                queue: 'intake',
                key: 'intake:3@1',
                payload: {},
                error: 'refused by the intake',
                code: 'INTAKE_FAILED',
                reasons: [
                  { code: 'PULL_INVALID', message: 'the manifest names another recording' },
                ],
                attempts: 1,
                failedAtMs: Date.UTC(2026, 11, 7, 12, 1, 0),
              },
            ],
          };
        case 'dataset:list':
          return { builds: [build({ done, failed: 1 })] };
        case 'jobs:retry':
          return { id: (input as { id: string }).id, queue: 'intake', key: 'intake:3@1' };
        default:
          throw new Error(`unexpected ${method}`);
      }
    }) as unknown as HubCall;
    render(<JobsSection call={call} nonce={0} />);
    const row = await screen.findByTestId('hub-jobs-build-7');
    expect(within(row).getByTestId('status').textContent).toBe('running');
    expect(within(row).getByTestId('progress').textContent).toContain('11 of 50 (1 left out)');
    expect(within(row).getByRole('progressbar').getAttribute('value')).toBe('11');
    const why = screen.getByTestId('hub-jobs-dead-why').textContent ?? '';
    expect(why).toContain('INTAKE_FAILED');
    expect(why).toContain('PULL_INVALID the manifest names another recording');

    // the next reading, JOBS_REFRESH_MS later, moves the build on
    done = 30;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(JOBS_REFRESH_MS + 10);
    });
    expect(
      within(screen.getByTestId('hub-jobs-build-7')).getByTestId('progress').textContent,
    ).toContain('31 of 50');
    expect(calls.filter((c) => c.method === 'jobs:status').length).toBeGreaterThanOrEqual(2);

    vi.useRealTimers();
    await userEvent.click(screen.getByTestId('hub-jobs-retry'));
    await vi.waitFor(() =>
      expect(calls.find((c) => c.method === 'jobs:retry')?.input).toEqual({
        id: '6f1c2a34-1b2c-4d5e-8f90-0123456789ab',
      }),
    );
  });

  it('a refused read shows the hub’s error and its fix', async () => {
    const call = (async () => {
      await Promise.resolve();
      throw new ApiError('FORBIDDEN', 'admins only', null, undefined, 'Ask an admin for the role.');
    }) as unknown as HubCall;
    render(<JobsSection call={call} nonce={0} />);
    const notice = await screen.findByTestId('hub-jobs-error');
    expect(notice.textContent).toContain('FORBIDDEN');
    expect(notice.textContent).toContain('Ask an admin for the role.');
  });
});
