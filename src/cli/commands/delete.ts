// `cua-annotator delete <id>`: removes a recording and its files.
import { deleteRecording } from '../../services/recordings';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { withLibrary } from '../context';
import { out, outJson } from '../output';

const HELP = `Usage: cua-annotator delete <id...> [--json] [--library DIR]

Deletes recordings (database rows, steps, edits and their files). Cannot be undone.

Options:
  --json          print the deleted ids as JSON
  --library DIR   library folder
  -h, --help      show this help`;

/** The `delete` command. */
export const deleteCommand: Command = {
  name: 'delete',
  summary: 'delete recordings and their files',
  help: HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } });
    if (values.help) {
      out(HELP);
      return 0;
    }
    if (!positionals.length) {
      throw new UsageError('delete needs at least one recording id');
    }
    const deleted = await withLibrary(values.library, (lib) =>
      positionals.map((id) => deleteRecording(lib, id).id),
    );
    if (values.json) {
      outJson({ deleted });
    } else {
      for (const id of deleted) {
        out(`deleted ${id}`);
      }
    }
    return 0;
  },
};
