// The task hub end to end through the CLI (issue 28 items 2 and 4): one embedded hub child
// (`hub --data DIR`), an admin's and an annotator's library each signed in, every step a
// separate CLI process. The admin previews a task file with bad lines (nothing written), imports
// it, and a re-import refuses the duplicates; the annotator lists the open tasks of their OS,
// claims one, submits the example recording with --task-id, and the task id is in the
// submission (sync, sync --all) and in the agentnet-jsonl export's task_id and the
// agentnet-raw export's hub_task_id.txt; a report makes a task infeasible. `record --task-id`
// on an Xvfb desktop claims the task and records its instruction with the task id.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../src/services/library/library';
import { getRecording } from '../../src/store';
import { runCli } from '../helpers/cli';
import { startDesktop } from '../helpers/desktop';
import { FIXTURE_DIR } from '../helpers/paths';
import { addHubUser, loginLibrary, startHubProcess, type HubProcess } from './hub-process';

let root: string;
let hub: HubProcess | null = null;
const lib = (who: 'ann' | 'adm') => path.join(root, `library-${who}`);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CLI JSON is read freely
async function as(who: 'ann' | 'adm', args: string[], code = 0): Promise<any> {
  const run = await runCli([...args, '--library', lib(who), '--json']);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
  return JSON.parse(run.stdout) as unknown;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'hub-tasks-cli-'));
  const data = path.join(root, 'hub-data');
  // accounts before the hub starts: it holds the data folder while it runs
  const passwords = {
    adm: await addHubUser('adm', ['admin'], ['--data', data]),
    ann: await addHubUser('ann', ['annotator'], ['--data', data]),
  };
  hub = await startHubProcess(['--data', data]);
  await loginLibrary(hub.url, 'adm', passwords.adm, lib('adm'));
  await loginLibrary(hub.url, 'ann', passwords.ann, lib('ann'));
}, 180_000);

afterAll(async () => {
  await hub?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('tasks through the CLI', () => {
  it('import preview → import → duplicates; list, claim, submit --task-id; the id in the submission and the exports; infeasible', async () => {
    const file = path.join(root, 'tasks.jsonl');
    const good = (i: number) =>
      JSON.stringify({
        instruction: `Open the example page and do thing ${i}`,
        domain: 'web',
        website: 'example.org',
        platform: i % 2 ? 'any' : 'win',
        target: 2,
      });
    const lines = [good(1), good(2), '{"instruction": ', good(3), '{"platform":"mac"}', good(4)];
    await writeFile(file, `${lines.join('\n')}\n`);

    const preview = await as('adm', ['tasks', 'import', file, '--dry-run']);
    expect(preview).toMatchObject({ dryRun: true, added: 4, duplicates: 0, ids: [] });
    expect(preview.errors.map((e: { line: number }) => e.line)).toEqual([3, 5]);
    expect(preview.errors[1].message).toMatch(/"instruction" is missing/);
    expect((await as('adm', ['tasks', '--all-platforms', '--status', 'all'])).tasks).toEqual([]);

    // without --confirm a file with bad lines writes nothing and names them
    const refused = await runCli(['tasks', 'import', file, '--library', lib('adm')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/HUB_TASK_FILE_INVALID/);
    expect(refused.stderr).toMatch(/^line 3: not JSON/m);
    expect(refused.stderr).toMatch(/^line 5: "instruction" is missing/m);
    expect(refused.stderr).toMatch(/--confirm/);
    expect((await as('adm', ['tasks', '--all-platforms', '--status', 'all'])).tasks).toEqual([]);

    const done = await as('adm', ['tasks', 'import', file, '--confirm']);
    expect([done.added, done.duplicates, done.errors.length]).toEqual([4, 0, 2]);
    const again = await as('adm', ['tasks', 'import', file, '--confirm']);
    expect([again.added, again.duplicates]).toEqual([0, 4]);

    // the annotator (on Linux: ubuntu) sees the tasks for any OS, not those for Windows
    const listed = (await as('ann', ['tasks'])).tasks;
    expect(listed.map((t: { instruction: string }) => t.instruction).sort()).toEqual([
      'Open the example page and do thing 1',
      'Open the example page and do thing 3',
    ]);
    const task = listed[0];
    expect(task).toMatchObject({
      platform: 'any',
      status: 'open',
      claimedBy: [],
      accepted: 0,
      target: 2,
    });
    expect(Object.keys(task)).toEqual(
      expect.arrayContaining([
        'id',
        'instruction',
        'platform',
        'status',
        'claimedBy',
        'accepted',
        'target',
      ]),
    );

    const claim = await as('ann', ['tasks', 'claim', String(task.id)]);
    expect(claim).toMatchObject({ claimed: true, task: { id: task.id, claimedBy: ['ann'] } });
    expect(Date.parse(claim.expiresAt)).toBeGreaterThan(Date.now());

    // an imported (older) recording linked to the task at submit
    const imported = await as('ann', ['import', FIXTURE_DIR, '--no-keyframes']);
    const id = (imported as { result: { id: string } }).result.id;
    expect(id).toBeTruthy();
    const submitted = await as('ann', [
      'submit',
      id,
      '--task-id',
      String(task.id),
      '--no-keyframes',
    ]);
    expect(submitted.submissions[0]).toMatchObject({ recording: id, version: 1 });
    expect((await as('ann', ['sync'])).submissions[0]).toMatchObject({
      recording: id,
      taskId: task.id,
    });
    expect((await as('adm', ['sync', '--all'])).submissions[0]).toMatchObject({
      recording: id,
      annotator: 'ann',
      taskId: task.id,
    });
    // the submission ended the claim; the task counts the recording
    const after = (await as('ann', ['tasks'])).tasks.find((t: { id: number }) => t.id === task.id);
    expect(after).toMatchObject({ claimedBy: [], recorded: 1, accepted: 0 });

    // the exports carry the task id
    const jsonlDir = path.join(root, 'out-jsonl');
    await as('ann', ['export', id, '--format', 'agentnet-jsonl', '--out', jsonlDir]);
    const record = JSON.parse(
      (await readFile(path.join(jsonlDir, 'agentnet.jsonl'), 'utf8')).trim(),
    ) as { task_id: string };
    expect(record.task_id).toBe(String(task.id));
    const rawDir = path.join(root, 'out-raw');
    const raw = await as('ann', ['export', id, '--format', 'agentnet-raw', '--out', rawDir]);
    const episode = (raw as { recordings: { episodeId: string }[] }).recordings[0]!.episodeId;
    expect(await readFile(path.join(rawDir, episode, 'hub_task_id.txt'), 'utf8')).toBe(
      String(task.id),
    );

    // a report with the default setting (3 reports) keeps the task open
    const other = listed[1];
    const report = await as('ann', [
      'tasks',
      'infeasible',
      String(other.id),
      '--reason',
      'the page is gone',
    ]);
    expect(report).toMatchObject({ reports: 1, setAside: false, task: { status: 'open' } });
    // one report is enough once the admin says so: the task is set aside, the admin sees why,
    // reopens it (reports cleared) and closes it; a closed task cannot be claimed
    expect(await as('adm', ['tasks', 'settings', '--infeasible-reports', '1'])).toMatchObject({
      infeasibleReports: 1,
      claimsPerTask: 1,
    });
    const again2 = await as('ann', ['tasks', 'infeasible', String(other.id), '--reason', 'gone']);
    expect(again2).toMatchObject({ reports: 1, setAside: true, task: { status: 'infeasible' } });
    const shown = await as('adm', ['tasks', 'show', String(other.id)]);
    expect(shown).toMatchObject({
      task: { status: 'infeasible' },
      reports: [{ user: 'ann', reason: 'gone' }],
    });
    expect((await as('adm', ['tasks', 'reopen', String(other.id)])).task.status).toBe('open');
    expect((await as('adm', ['tasks', 'show', String(other.id)])).reports).toEqual([]);
    expect((await as('adm', ['tasks', 'close', String(other.id)])).task.status).toBe('closed');
    const closed = await runCli(['tasks', 'claim', String(other.id), '--library', lib('ann')]);
    expect([closed.code, closed.stderr]).toEqual([2, expect.stringMatching(/INVALID_STATE/)]);
    // an annotator may not change settings
    const denied = await runCli([
      'tasks',
      'settings',
      '--claim-minutes',
      '5',
      '--library',
      lib('ann'),
    ]);
    expect([denied.code, denied.stderr]).toEqual([2, expect.stringMatching(/FORBIDDEN/)]);
    // usage errors exit 1
    const bad = await runCli(['tasks', 'claim', 'x', '--library', lib('ann')]);
    expect(bad.code).toBe(1);
  }, 240_000);

  it('record --task-id claims the task and records its instruction, the id kept with the recording', async () => {
    const file = path.join(root, 'record-task.jsonl');
    await writeFile(file, JSON.stringify({ instruction: 'Record me: open a terminal window' }));
    const [id] = (await as('adm', ['tasks', 'import', file])).ids as number[];
    // --task and --task-id together, and a task id that is not a number, are usage errors
    const both = await runCli([
      'record',
      '--task',
      'x',
      '--task-id',
      String(id),
      '--library',
      lib('ann'),
    ]);
    expect([both.code, both.stderr]).toEqual([1, expect.stringMatching(/not both/)]);
    const desktop = await startDesktop();
    try {
      const run = await runCli(
        [
          'record',
          '--task-id',
          String(id),
          '--duration',
          '2',
          '--no-a11y',
          '--library',
          lib('ann'),
          '--json',
        ],
        desktop.env,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(new RegExp(`task ${id} claimed until`));
      const recorded = JSON.parse(run.stdout) as { id: string };
      const library = openLibrary(lib('ann'));
      try {
        const rec = getRecording(library.db, recorded.id);
        expect([rec.task, rec.sourceMetadata]).toEqual([
          'Record me: open a terminal window',
          { teamTaskId: id },
        ]);
      } finally {
        library.close();
      }
    } finally {
      await desktop.stop();
    }
    const [task] = (await as('ann', ['tasks'])).tasks.filter((t: { id: number }) => t.id === id);
    expect(task.claimedBy).toEqual(['ann']);
  }, 240_000);
});
