// Shape of one CLI command.

/** One `cua-annotator <name>` command. */
export type Command = {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full `--help` text. */
  help: string;
  /** Runs the command; returns the exit code. Throw UsageError for usage mistakes. */
  run: (argv: string[]) => Promise<number>;
};
