// `cua-annotator show <id>`: one recording in detail.
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { out, outJson } from '../output';
import { formatDuration } from './list';

const HELP = `Usage: cua-annotator show <id> [--json] [--library DIR]

Shows one recording: task, platform, screen, video (and where video time 0 sits on the
recording clock), raw event counts and the steps with their PyAutoGUI code.
<id> may be a unique prefix of the id (at least 4 characters).

Options:
  --json          print JSON for scripts
  --library DIR   library folder
  -h, --help      show this help`;

/** The `show` command. */
export const showCommand: Command = defineCommand({
  name: 'show',
  summary: 'show one recording with its steps',
  help: HELP,
  options: { json: { type: 'boolean' } },
  args: { exactly: 1, usage: 'show takes exactly one recording id' },
  run: async ({ values, positionals }) => {
    const id = positionals[0] ?? '';
    // reads only: works on a read-only library
    const view = await withServices(values.library, (services) => services.showRecording(id), {
      readOnly: true,
    });
    if (values.json) {
      outJson(view);
      return 0;
    }
    const c = view.eventCounts;
    out(`Recording ${view.id}`);
    out(`  task:      ${view.task}`);
    out(`  status:    ${view.status} (review: ${view.reviewStatus}), source ${view.source}`);
    out(`  platform:  ${view.platform.system} ${view.platform.release} (${view.platform.version})`);
    out(`  screen:    ${view.screen.width}×${view.screen.height} px, scale ${view.screen.scale}`);
    if (view.video) {
      const v = view.video;
      out(
        `  video:     ${v.width}×${v.height} @ ${v.fps} fps, ${formatDuration(v.durationMs)} (${v.frameCount ?? '?'} frames)`,
      );
      out(`  video t=0: ${v.startS} s on the recording clock (${v.startMethod})`);
    }
    out(
      `  events:    ${c.total} (${c.move} moves, ${c.button} button, ${c.scroll} scroll, ${c.key} key, ${c.other} other)`,
    );
    if (view.warnings.length) {
      out(`  warnings:  ${view.warnings.join(', ')}`);
    }
    out(`  steps:     ${view.steps.length}`);
    for (const s of view.steps) {
      const start = view.video ? ((s.startMs - view.video.startMs) / 1000).toFixed(3) : '?';
      out(
        `  ${String(s.index).padStart(3)}  ${start.padStart(8)}s  ${s.type.padEnd(11)} ${s.label}`,
      );
      for (const line of s.code.split('\n').filter(Boolean)) {
        out(`                          ${line}`);
      }
    }
    return 0;
  },
});
