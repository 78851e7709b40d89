// Whole-process-tree measurement from /proc (bench/export-cold.ts): runs a command and samples,
// every few milliseconds, the resident memory of it and of every descendant alive at that moment
// (summed), keeping the largest sum; wall time from the clock and CPU (user + sys of the process
// and its reaped children) from the kernel's accounting of the finished tree. GNU time's "max
// RSS" is the largest single process only; a child decoder beside Node is missed by it.

import { spawn } from 'node:child_process';
import fs from 'node:fs';

const PAGE_KIB = 4; // x86-64/arm64 Linux page size, KiB

/** Wall, CPU and whole-tree peak memory of one run. */
export type TreeMeasure = {
  wallS: number;
  cpuS: number;
  userS: number;
  sysS: number;
  /** Largest sum of the tree's resident sets over the samples, MiB. */
  peakMiB: number;
  /** Largest single process seen, MiB. */
  peakProcessMiB: number;
};

/** Parent pid and resident KiB of every live process (one pass over /proc). */
function processTable(): Map<number, { ppid: number; rssKiB: number }> {
  const table = new Map<number, { ppid: number; rssKiB: number }>();
  for (const name of fs.readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[1] = ppid, fields[21] = rss in pages (after the comm field)
      table.set(pid, { ppid: Number(fields[1]), rssKiB: Number(fields[21]) * PAGE_KIB });
    } catch {
      // ended while we read
    }
  }
  return table;
}

/** Sum of the resident sets of `root` and its descendants, and the largest one, KiB. */
function treeRss(root: number): { sumKiB: number; maxKiB: number } {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of table) {
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  let sumKiB = 0;
  let maxKiB = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    const rss = table.get(pid)?.rssKiB ?? 0;
    sumKiB += rss;
    maxKiB = Math.max(maxKiB, rss);
    stack.push(...(children.get(pid) ?? []));
  }
  return { sumKiB, maxKiB };
}

/** Runs `argv` to the end, sampling its tree every `intervalMs`; rejects on a non-zero exit. */
export async function measureTree(
  argv: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; intervalMs?: number },
): Promise<TreeMeasure> {
  // a shell parent reports the children's CPU via `times` once they are reaped
  const script = '"$@"; status=$?; times >&3; exit $status';
  const start = performance.now();
  const child = spawn('/bin/sh', ['-c', script, 'sh', ...argv], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let times = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  (child.stdio[3] as NodeJS.ReadableStream).on(
    'data',
    (chunk: Buffer) => (times += chunk.toString()),
  );
  let peakKiB = 0;
  let peakProcessKiB = 0;
  const sample = (): void => {
    if (child.pid !== undefined) {
      const { sumKiB, maxKiB } = treeRss(child.pid);
      peakKiB = Math.max(peakKiB, sumKiB);
      peakProcessKiB = Math.max(peakProcessKiB, maxKiB);
    }
  };
  const timer = setInterval(sample, options.intervalMs ?? 10);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  clearInterval(timer);
  const wallS = (performance.now() - start) / 1000;
  if (code !== 0) {
    throw new Error(`${argv.join(' ')} exited ${code}:\n${output}`);
  }
  // `times`: shell user/sys, then children user/sys, as "0m1.234s 0m0.123s"
  const lines = times.trim().split('\n');
  const seconds = (s: string): number => {
    const m = /(\d+)m([\d.]+)s/.exec(s);
    return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
  };
  const [userS, sysS] = (lines.at(-1) ?? '').trim().split(/\s+/).map(seconds) as [number, number];
  return {
    wallS,
    cpuS: userS + sysS,
    userS,
    sysS,
    peakMiB: peakKiB / 1024,
    peakProcessMiB: peakProcessKiB / 1024,
  };
}
