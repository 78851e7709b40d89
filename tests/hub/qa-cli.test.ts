// QA sampling through the CLI (docs/team-mode.md §19): one embedded hub child (`hub --data DIR`,
// its intake job on), the share set to 1 before it starts, four libraries signed in, every step
// a separate CLI process. The annotator submits the example recording; rev1 takes it with
// `review next` and accepts it; rev1 is then given nothing, rev2 is given it as a second review
// ("qa": true, and a line saying so in text), and rejects it: the verdict answers qa and the
// status stays accepted; the annotator's `sync` shows the first verdict; the database's figures
// count one disagreement.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByName, hubStats, openHubDb } from '../../src/hub/db';
import { writeQaSettings } from '../../src/hub/review/qa';
import { runCli } from '../helpers/cli';
import { copyExampleLibrary } from '../helpers/example-library';
import { addHubUser, loginLibrary, startHubProcess, type HubProcess } from './hub-process';

type Who = 'ann' | 'rev1' | 'rev2';
let root: string;
let data: string;
let hub: HubProcess | null = null;
let recordingId: string;
const lib = (who: Who) => path.join(root, `library-${who}`);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CLI JSON is read freely
async function as(who: Who, args: string[]): Promise<any> {
  const run = await runCli([...args, '--library', lib(who), '--json']);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as unknown;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'hub-qa-cli-'));
  data = path.join(root, 'hub-data');
  // accounts and the QA share before the hub starts: it holds the data folder while it runs
  const passwords = {
    adm: await addHubUser('adm', ['admin'], ['--data', data]),
    ann: await addHubUser('ann', ['annotator'], ['--data', data]),
    rev1: await addHubUser('rev1', ['reviewer'], ['--data', data]),
    rev2: await addHubUser('rev2', ['reviewer'], ['--data', data]),
  };
  const db = await openHubDb({ data });
  try {
    const adm = await findUserByName(db.db, 'adm');
    await writeQaSettings(
      db.db,
      { userId: adm!.id, name: 'adm', client: 'test' },
      {
        sampleShare: 1,
      },
    );
  } finally {
    await db.close();
  }
  recordingId = await copyExampleLibrary(lib('ann'), { keyframes: false });
  hub = await startHubProcess(['--data', data]);
  for (const who of ['ann', 'rev1', 'rev2'] as const) {
    await loginLibrary(hub.url, who, passwords[who], lib(who));
  }
}, 240_000);

afterAll(async () => {
  await hub?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('QA sampling through the CLI', () => {
  it('accept → drawn; the other reviewer gets it as a second review; its reject keeps the status', async () => {
    const submitted = await as('ann', ['submit', recordingId, '--no-keyframes']);
    expect(submitted.submissions).toMatchObject([{ recording: recordingId, version: 1 }]);

    // the hub's intake checks the version first (seconds)
    let first: { submission: Record<string, unknown> | null } = { submission: null };
    for (let i = 0; i < 120 && !first.submission; i++) {
      first = await as('rev1', ['review', 'next']);
      if (!first.submission) {
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    expect(first.submission).toEqual({
      id: expect.any(Number),
      recording: recordingId,
      annotator: 'ann',
      task: expect.any(String),
      version: 1,
    });
    const id = first.submission!.id as number;
    const accepted = await as('rev1', ['review', 'verdict', recordingId, 'accept']);
    expect(accepted.verdict).toMatchObject({ id, status: 'accepted', sampled: true });
    expect(await as('rev1', ['review', 'next'])).toEqual({ submission: null });

    const second = await as('rev2', ['review', 'next']);
    expect(second.submission).toMatchObject({ id, recording: recordingId, version: 1, qa: true });
    // asked again in text: still theirs, and said to be a second review
    const text = await runCli(['review', 'next', '--library', lib('rev2')]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`still yours: submission ${id} version 1`);
    expect(text.stdout).toContain('a second review (QA sampling)');
    const rejected = await runCli([
      ...['review', 'verdict', recordingId, 'reject', '--feedback', 'never saves'],
      ...['--library', lib('rev2')],
    ]);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout.trim()).toBe(
      `second review of submission ${id} version 1 recorded (reject); it stays accepted until ` +
        'an admin settles any disagreement',
    );

    const mine = await as('ann', ['sync']);
    expect(mine.submissions).toMatchObject([
      { id, status: 'accepted', reviewer: 'rev1', feedback: '' },
    ]);
    await hub!.stop();
    hub = null;
    const db = await openHubDb({ data });
    try {
      const qa = (await hubStats(db.db)).qa;
      expect(qa).toMatchObject({ sampled: 1, reviewed: 1, agreed: 0, unsettled: 1 });
      expect(qa.disagreements).toMatchObject([
        {
          submissionId: id,
          firstReviewer: 'rev1',
          secondReviewer: 'rev2',
          secondVerdict: 'reject',
        },
      ]);
    } finally {
      await db.close();
    }
  }, 240_000);
});
