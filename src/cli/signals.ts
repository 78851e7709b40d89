// Waiting for Ctrl+C or SIGTERM in the long-running commands (serve, hub, worker).

/** Resolves on the first SIGINT or SIGTERM. The listeners stay until dispose (after the command
 * has stopped): a handler that removed itself while the signal is being delivered would leave
 * signal-exit (loaded with execa on first use) as the only listener, and it then re-raises the
 * signal, killing the process mid-shutdown. */
export function untilSignal(): { stopped: Promise<NodeJS.Signals>; dispose: () => void } {
  let on: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    on = resolve;
  });
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return {
    stopped,
    dispose: () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}
