// @vitest-environment happy-dom
// The Dashboard with a scripted hub (the page takes the hub's `call`): a figure's table shows its
// first TABLE_ROWS rows and "Show all" the rest (the CSV has every row); the figures asked for
// before the page mounted (prefetchDashboard, main.tsx) are shown without asking again, and a
// refused early answer is asked again so the page shows the hub's error; two sign-in checks at
// once are one whoami.
import '../../helpers/dom';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../../src/renderer/api/api-error';
import {
  DashboardPage,
  prefetchDashboard,
  TABLE_ROWS,
} from '../../../../src/renderer/pages/team/hub/DashboardPage';
import type { HubCall } from '../../../../src/renderer/pages/team/hub/TasksPage';
import type { HubStats } from '../../../../src/shared/contract/hub-stats';

// the charts are Vega's business (tests/e2e/hub-dashboard.test.ts draws them in Chromium)
vi.mock('vega-embed', () => ({ default: () => Promise.resolve({ finalize: () => undefined }) }));
vi.mock('vega-interpreter', () => ({ expressionInterpreter: {} }));

function stats(accepted: number, days: number): HubStats {
  const perDay = Array.from({ length: days }, (_, i) => ({
    user: `ann-${i % 3}`,
    day: new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
    submitted: 1 + (i % 4),
  }));
  return {
    filter: {},
    accepted: { total: accepted, byOs: { linux: accepted }, byDomain: [], byApp: [], byTask: [] },
    steps: { mean: 18, agentnetMean: 18.6, histogram: [{ from: 0, to: 5, count: accepted }] },
    actions: { counts: { click: 3 }, meanEntropyBits: 0.5 },
    video: { hours: 1 },
    keyframes: { count: 9 },
    team: {
      annotators: [],
      perDay,
      perWeek: [],
      grades: {},
      turnaround: { count: 0, meanSeconds: null, medianSeconds: null },
      reasons: [],
      reviewers: [],
    },
    qa: {
      sampled: 0,
      reviewed: 0,
      agreed: 0,
      agreementRate: null,
      unsettled: 0,
      disagreements: [],
    },
  };
}

// a hub answering stats:get with `answer` (qa:settings, jobs:*, dataset:list as empty)
function hub(answer: (input: unknown) => Promise<HubStats>) {
  const calls: { method: string; input: unknown }[] = [];
  const call = (async (method: string, input: unknown) => {
    calls.push({ method, input });
    switch (method) {
      case 'stats:get':
        return await answer(input);
      case 'qa:settings':
        return { sampleShare: 0 };
      case 'jobs:status':
        return { queues: [] };
      case 'jobs:dead':
        return { jobs: [] };
      case 'dataset:list':
        return { builds: [] };
      default:
        throw new Error(`unexpected ${method}`);
    }
  }) as unknown as HubCall;
  return { call, calls };
}

describe('DashboardPage', () => {
  it('shows a long table’s first rows, then all of them on Show all', async () => {
    const { call } = hub(() => Promise.resolve(stats(5, 250)));
    render(<DashboardPage call={call} />);
    const fig = await screen.findByTestId('hub-fig-submissions-per-day');
    const table = within(fig).getByRole('table');
    expect(within(table).getAllByRole('row')).toHaveLength(1 + TABLE_ROWS);
    const all = within(fig).getByTestId('hub-fig-submissions-per-day-all');
    expect(all.textContent).toBe('Show all 250 rows');
    // the CSV holds every row whatever the table shows
    const csv = decodeURIComponent(
      within(fig).getByText('Download CSV').getAttribute('href')!.split(',').slice(1).join(','),
    );
    expect(csv.trim().split('\n')).toHaveLength(1 + 250);
    await userEvent.click(all);
    expect(within(table).getAllByRole('row')).toHaveLength(1 + 250);
    expect(within(fig).queryByTestId('hub-fig-submissions-per-day-all')).toBeNull();
  });

  it('takes the figures asked for before it mounted, and asks again after a refusal', async () => {
    const first = hub(() => Promise.resolve(stats(41, 3)));
    prefetchDashboard(first.call);
    const shown = render(<DashboardPage call={first.call} />);
    expect((await screen.findByTestId('hub-dash-accepted')).textContent).toBe('41');
    expect(first.calls.filter((c) => c.method === 'stats:get')).toHaveLength(1);
    shown.unmount();

    // refused early (not yet signed in), then answered: the page shows the second answer
    let n = 0;
    const second = hub(() =>
      ++n === 1
        ? Promise.reject(new ApiError('UNAUTHORIZED', 'Sign in first.'))
        : Promise.resolve(stats(7, 3)),
    );
    prefetchDashboard(second.call);
    const { unmount } = render(<DashboardPage call={second.call} />);
    await waitFor(() => {
      expect(screen.getByTestId('hub-dash-accepted').textContent).toBe('7');
    });
    expect(second.calls.filter((c) => c.method === 'stats:get')).toHaveLength(2);
    unmount();
  });
});
