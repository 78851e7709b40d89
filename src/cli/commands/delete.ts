// `cua-annotator delete <id>`: removes a recording and its files.
import { isAppError } from '../../shared/errors';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { errLine, out, outJson } from '../output';

const HELP = `Usage: cua-annotator delete <id...> [--json] [--library DIR]

Deletes recordings (database rows, steps, edits and their files). Cannot be undone. Every id
is tried; the exit code is 2 when any of them could not be deleted. A recording that is still
being recorded is refused: stop it first.

Options:
  --json          print the deleted ids and the errors as JSON
  --library DIR   library folder
  -h, --help      show this help`;

/** The `delete` command. */
export const deleteCommand: Command = defineCommand({
  name: 'delete',
  summary: 'delete recordings and their files',
  help: HELP,
  options: { json: { type: 'boolean' } },
  args: { atLeast: 1, usage: 'delete needs at least one recording id' },
  run: async ({ values, positionals }) => {
    // every id is tried: one that fails never hides what the others did
    const { deleted, failed } = await withServices(values.library, async (services) => {
      const done: string[] = [];
      const errors: { id: string; code: string; message: string; fix?: string }[] = [];
      for (const id of positionals) {
        try {
          done.push((await services.deleteRecording(id)).id);
        } catch (e) {
          if (!isAppError(e)) {
            throw e;
          }
          errors.push({ id, code: e.code, message: e.message, ...(e.fix ? { fix: e.fix } : {}) });
        }
      }
      return { deleted: done, failed: errors };
    });
    if (values.json) {
      outJson({ deleted, errors: failed });
    } else {
      for (const id of deleted) {
        out(`deleted ${id}`);
      }
      for (const f of failed) {
        errLine(`error [${f.code}]: ${f.id}: ${f.message}`);
        if (f.fix) {
          errLine(`fix: ${f.fix}`);
        }
      }
      if (failed.length && positionals.length > 1) {
        errLine(`deleted ${deleted.length} of ${positionals.length} recordings`);
      }
    }
    return failed.length ? 2 : 0;
  },
});
