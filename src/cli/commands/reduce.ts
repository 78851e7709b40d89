// `cua-annotator reduce <id>`: (re)runs the reducer over a recording's raw events.
import { stepCode } from '../../services/create-services';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { errLine, out, outJson } from '../output';

const HELP = `Usage: cua-annotator reduce <id> [--dry-run] [--replace-imported] [--json] [--library DIR]

Reduces the recording's raw events to PyAutoGUI-style steps (click, doubleClick, tripleClick,
rightClick, middleClick, dragTo, scroll, hscroll, write, press, hotkey) and stores them. Raw
events never change. Steps keep stable ids, so labels survive a re-run where the step still
exists.

Options:
  --dry-run            print the steps without storing them
  --replace-imported   replace the steps of an AgentNet import (its annotator deletions are lost)
  --json               print JSON
  --library DIR        library folder
  -h, --help           show this help`;

/** The `reduce` command. */
export const reduceCommand: Command = defineCommand({
  name: 'reduce',
  summary: 're-run action reduction over a recording',
  help: HELP,
  options: {
    'dry-run': { type: 'boolean' },
    'replace-imported': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  args: { exactly: 1, usage: 'reduce takes exactly one recording id' },
  run: async ({ values, positionals }) => {
    const id = positionals[0] ?? '';
    const r = await withServices(values.library, (services) =>
      services.reduceRecording(id, {
        dryRun: values['dry-run'],
        replaceImported: values['replace-imported'],
      }),
    );
    const steps = r.steps.map((s) => ({
      index: s.index,
      id: s.id,
      type: s.kind,
      description: s.description,
      code: stepCode(s),
      startMs: s.startMs,
      endMs: s.endMs,
      diagnostics: s.diagnostics,
    }));
    if (values.json) {
      outJson({ ...r, steps });
      return 0;
    }
    for (const s of steps) {
      out(`${String(s.index).padStart(3)}  ${s.type.padEnd(11)} ${s.code.replace(/\n/g, ' ; ')}`);
    }
    const edits =
      r.editsKept + r.editsLost === 0
        ? 'no edits'
        : `${r.editsKept} of ${r.editsKept + r.editsLost} edits still apply`;
    out(
      `${r.stored ? 'stored' : 'computed (dry run)'} ${steps.length} steps for ${r.id} ` +
        `(reducer ${r.reducerVersion}, ${r.unowned} unowned events, ${r.labelsKept} labels kept, ` +
        `${edits}; ${r.stepCount} steps shown with edits)`,
    );
    if (r.editsLost > 0) {
      errLine(
        `warning: ${r.editsLost} edit(s) no longer match a step and are skipped (they stay in ` +
          'the edit log and apply again if a later reduction brings their step back).',
      );
    }
    return 0;
  },
});
