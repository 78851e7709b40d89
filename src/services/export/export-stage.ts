// Staging and committing an export so that a kill -9 at any moment leaves the output folder with
// its old contents or the complete export, never an index without its images:
// - everything is written into a hidden staging folder `.cua-export-<pid>-<hex>` inside the
//   output folder (same file system, so moves are renames);
// - the commit first writes a journal (`.commit.json`, itself renamed into place) listing every
//   move, then renames images and other dependents first and the index files (`<episode>.json`,
//   `agentnet.jsonl`) last, so an index never names an image that is not there yet;
// - the next export into the same folder finds staging folders whose process is gone (or, of
//   this process, whose export has ended): with a journal it finishes their moves (the export had
//   been committed, or its commit failed partway), without one it deletes them.
// Callers hold the folder's export lock (export-lock.ts) around commitStage and
// recoverStaleStages: two commits or recoveries at once in one folder would collide.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isProcessAlive } from '../../infra/process-alive';
import { errnoOf } from './export-target';

// name prefix of staging folders inside an output folder
const STAGE_PREFIX = '.cua-export-';
const JOURNAL = '.commit.json';
const REPLACED = '.replaced';
// `.cua-export-<pid>-<hex>`; folders of older versions have no pid
const STAGE_NAME = /^\.cua-export-(?:(\d+)-)?[0-9a-f]+$/;

/** One rename of the commit, paths relative to the staging and the output folder. */
export type StageMove = { from: string; to: string };

// Staging folders this process is writing right now (absolute paths): a staging folder of this
// pid that is not listed here was left by an export of this process that failed mid-commit.
const liveStages = new Set<string>();

// a new staging folder name for this process
function newStageName(): string {
  return `${STAGE_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** Creates a new staging folder in `outDir` for this process; returns its path. */
export async function createStage(outDir: string): Promise<string> {
  const stage = path.join(outDir, newStageName());
  liveStages.add(stage);
  try {
    await fs.mkdir(stage);
  } catch (e) {
    liveStages.delete(stage);
    throw e;
  }
  return stage;
}

/**
 * Ends this process's use of `stage`: removes it, unless its commit had started (it holds a
 * journal) and did not finish; then it stays for the next export into the folder to finish.
 * Returns true when the staging folder was kept.
 */
export async function dropStage(stage: string): Promise<boolean> {
  liveStages.delete(stage);
  if (await exists(path.join(stage, JOURNAL))) {
    return true;
  }
  await fs.rm(stage, { recursive: true, force: true });
  return false;
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

// Commit order: files inside shared folders (images/, cot-input/) first, then whole folders
// (agentnet-raw episodes), then top-level files, agentnet.jsonl (the index of all) last.
function rankOf(move: StageMove, isDir: boolean): number {
  if (move.to.includes('/')) {
    return 0;
  }
  if (isDir) {
    return 1;
  }
  return move.to === 'agentnet.jsonl' ? 3 : 2;
}

/** Orders `moves` so dependents land before the index files that name them. */
export async function orderMoves(stage: string, moves: StageMove[]): Promise<StageMove[]> {
  const ranked = await Promise.all(
    moves.map(async (m) => ({
      m,
      rank: rankOf(m, (await fs.stat(path.join(stage, m.from))).isDirectory()),
    })),
  );
  return ranked.sort((a, b) => a.rank - b.rank).map((r) => r.m);
}

/** Applies the journalled moves still pending (idempotent: done moves are skipped). */
async function applyMoves(
  stage: string,
  outDir: string,
  moves: readonly StageMove[],
  onMove?: (move: StageMove) => void,
): Promise<void> {
  for (const [i, m] of moves.entries()) {
    const from = path.join(stage, m.from);
    if (!(await exists(from))) {
      continue; // moved before an interruption
    }
    const to = path.join(outDir, m.to);
    await fs.mkdir(path.dirname(to), { recursive: true });
    const target = await fs.lstat(to).catch(() => null);
    if (target?.isDirectory()) {
      // a folder cannot be renamed over: park the old one in the staging folder (removed below)
      await fs.mkdir(path.join(stage, REPLACED), { recursive: true });
      await fs.rename(to, path.join(stage, REPLACED, String(i)));
    }
    // a file is replaced atomically by the rename itself
    await fs.rename(from, to);
    onMove?.(m);
  }
}

/** Journals and applies `moves` from `stage` into `outDir`, then removes `stage`. */
export async function commitStage(
  stage: string,
  outDir: string,
  moves: readonly StageMove[],
  onMove?: (move: StageMove) => void,
): Promise<void> {
  const journal = path.join(stage, JOURNAL);
  await fs.writeFile(`${journal}.tmp`, JSON.stringify({ moves }));
  await fs.rename(`${journal}.tmp`, journal);
  await applyMoves(stage, outDir, moves, onMove);
  await fs.rm(stage, { recursive: true, force: true });
}

/**
 * Finishes or removes the staging folders in `outDir` left by exports whose process is gone;
 * returns the names handled.
 */
export async function recoverStaleStages(outDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(outDir);
  } catch {
    return [];
  }
  const handled: string[] = [];
  for (const name of names) {
    const m = STAGE_NAME.exec(name);
    if (!m) {
      continue;
    }
    const pid = m[1] === undefined ? null : Number(m[1]);
    const stage = path.join(outDir, name);
    if (pid === process.pid ? liveStages.has(stage) : pid !== null && isProcessAlive(pid)) {
      continue; // a running export
    }
    try {
      const { moves } = JSON.parse(await fs.readFile(path.join(stage, JOURNAL), 'utf8')) as {
        moves: StageMove[];
      };
      await applyMoves(stage, outDir, moves);
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT' && !(e instanceof SyntaxError)) {
        throw e;
      }
      // never committed (no journal, or one cut short): the staged files are dropped
    }
    await fs.rm(stage, { recursive: true, force: true });
    handled.push(name);
  }
  return handled;
}
