// Per-process figures from /proc shared by the recorder benchmarks (bench/recorder.ts,
// bench/hook-rate.ts): CPU and wake-ups summed over every thread of a process. A wake-up is a
// voluntary context switch (the thread slept and was woken); on this VM each costs 100–250 µs of
// CPU, so they explain most of a quiet process's cost.

import fs from 'node:fs';

const TICK = 100; // USER_HZ on Linux

/** CPU seconds (utime + stime) and voluntary context switches of every live thread of `pid`;
 * zeros for a process that has ended. */
export function threadsUsage(pid: number): { cpu: number; wakes: number } {
  let cpu = 0;
  let wakes = 0;
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu += (Number(fields[11]) + Number(fields[12])) / TICK;
      const status = fs.readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      wakes += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
    }
  } catch {
    // the process (or a thread) ended while we read
  }
  return { cpu, wakes };
}
