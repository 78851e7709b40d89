// The one kill-on-exit registry (docs/architecture.md §5): children registered here get a signal
// from a synchronous 'exit' hook, so a normal exit (including process.exit() from a signal
// handler) never leaves them running. A host killed by SIGKILL runs no hook: long-lived children
// also start with a parent-death signal (./parent-death.ts).
import type { ChildProcess } from 'node:child_process';

const children = new Map<ChildProcess, NodeJS.Signals>();
let isHookInstalled = false;

function signalAll(): void {
  for (const [child, signal] of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    }
  }
  children.clear();
}

/**
 * Registers a running child to get `signal` (default SIGKILL) when this process exits; returns
 * the unregister function (call it once the child has ended). SIGTERM suits children that must
 * finish a file on their own (ffmpeg capture).
 */
export function killOnExit(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): () => void {
  if (!isHookInstalled) {
    isHookInstalled = true;
    // 'exit' handlers must be synchronous: a signal is all we can send
    process.once('exit', signalAll);
  }
  children.set(child, signal);
  return () => {
    children.delete(child);
  };
}

/** How many children are registered (for tests and diagnostics). */
export function registeredChildCount(): number {
  return children.size;
}
