// `cua-annotator record --task "…"`: records screen, input, windows and accessibility.
import { DEFAULT_HOTKEYS } from '../../recorder/input/hotkeys';
import { compileExclusions, exclusionRules } from '../../recorder/privacy/exclusion';
import { taskToRecord } from '../../services/create-services';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { errLine, out, outJson } from '../output';
import { formatDuration } from './list';

const HELP = `Usage: cua-annotator record --task "<instruction>" | --task-id ID [--fps 30] [--duration S] [--display :N]
                            [--no-a11y] [--stop-hotkey CHORD] [--pause-hotkey CHORD] [--json]
                            [--exclude-app NAME]... [--exclude-title REGEX]... [--library DIR]

Records the X display: screen video (ffmpeg x11grab, constant frame rate, crash-safe fragmented
MP4), every keyboard and mouse event (uiohook in a child process), the active window and the
accessibility tree around each action (AT-SPI), all on one monotonic clock. Prints the new
recording id, records until Ctrl+C / SIGTERM, the stop hotkey or --duration, then finalises,
reduces the input to steps, computes and stores each step's keyframe and prints a one-line
summary.

Options:
  --task TEXT          the task instruction (this or --task-id is required)
  --task-id ID         record a task of the team hub (cua-annotator tasks): the task is
                       claimed for you (or your claim renewed), its instruction recorded, and
                       its id kept with the recording, in its submission and its exports
  --fps N              frames per second (default 30)
  --duration S         stop after S seconds
  --display :N         X display (default $DISPLAY)
  --no-a11y            do not capture the accessibility tree
  --stop-hotkey C      stop chord (default ctrl+alt+shift+r); never recorded
  --pause-hotkey C     pause/resume chord (default ctrl+alt+shift+p); never recorded
  --exclude-app NAME   never store keys, clicks or accessibility data of this application
                       (WM_CLASS class or instance, or process name; case-insensitive);
                       repeatable, added to the settings' rules and the built-in ones
  --exclude-title RE   the same for windows whose title matches this regular expression
                       (case-insensitive); repeatable
  --json               print the summary as JSON
  --library DIR        library folder
  -h, --help           show this help

Excluded windows (docs/privacy.md): password managers and private/incognito browser windows by
default, plus the settings' privacy rules and the options above. While one has focus no key, no
accessibility data and no title is stored; clicks and wheel steps on one are not stored; the
interval is marked \`excluded\` and exports blank its frames. Pointer moves are kept.

When something fails for good while recording (ffmpeg dies, the input hook keeps crashing, the
library's disk is nearly full) the recorder stops by itself, saves everything captured until
then with a warning saying what happened and when (\`show\` lists it), prints the summary and
the error with a fix, and exits 2. It warns on stderr before the disk gets that full.

Live warnings (stderr now, stored with the recording): IDLE_LONG after no input for 60 s (once
per idle stretch), RECORDING_LONG after 30 min recorded, DISPLAY_CHANGED when the display's size
changes; pauses count for neither (docs/architecture.md §5 "Live warnings").

Exit codes: 0 a complete recording; 2 a recording that ended early or failed (see the warnings
and error), or one that could not start; 1 a usage error.

Environment:
  CUA_RECORD_DISK_WARN_MB   warn when the library's disk has less free space (default 1024)
  CUA_RECORD_DISK_FLOOR_MB  stop and save below this much free space (default 200)
  CUA_RECORD_IDLE_WARN_S    warn after this many seconds without input (default 60; 0: never)
  CUA_RECORD_LONG_WARN_MIN  warn once this many minutes are recorded (default 30; 0: never)

Run \`cua-annotator doctor\` first if recording refuses to start.`;

/** The `record` command. */
export const recordCommand: Command = defineCommand({
  name: 'record',
  summary: 'record screen, input, windows and accessibility into the library',
  help: HELP,
  options: {
    task: { type: 'string' },
    'task-id': { type: 'string' },
    fps: { type: 'string' },
    duration: { type: 'string' },
    display: { type: 'string' },
    'no-a11y': { type: 'boolean' },
    'stop-hotkey': { type: 'string' },
    'pause-hotkey': { type: 'string' },
    'exclude-app': { type: 'string', multiple: true },
    'exclude-title': { type: 'string', multiple: true },
    json: { type: 'boolean' },
  },
  args: { none: true, hint: '; put the task in --task' },
  run: async ({ values }) => {
    const teamTaskId = values['task-id'];
    if (teamTaskId !== undefined) {
      if (!/^[1-9][0-9]{0,15}$/.test(teamTaskId)) {
        throw new UsageError(`--task-id is a hub task's number (got "${teamTaskId}")`);
      }
      if (values.task !== undefined) {
        throw new UsageError('give --task or --task-id, not both: the task brings its instruction');
      }
    } else if (!values.task?.trim()) {
      throw new UsageError('--task "<instruction>" (or --task-id ID) is required');
    }
    const fps = values.fps === undefined ? 30 : Number(values.fps);
    if (!Number.isInteger(fps) || fps < 1 || fps > 120) {
      throw new UsageError(`--fps must be an integer from 1 to 120 (got "${values.fps}")`);
    }
    const durationS = values.duration === undefined ? undefined : Number(values.duration);
    if (durationS !== undefined && !(durationS > 0)) {
      throw new UsageError(
        `--duration must be a positive number of seconds (got "${values.duration}")`,
      );
    }
    const excludeApps = values['exclude-app'] ?? [];
    const excludeTitles = values['exclude-title'] ?? [];
    // a bad rule is refused before the library opens or anything starts (EXCLUSION_RULE_INVALID
    // names the option and the fix)
    compileExclusions(
      exclusionRules({ settings: { useDefaultExclusions: false }, excludeApps, excludeTitles }),
    );
    const disk = {
      warnBytes: megabytesFromEnv('CUA_RECORD_DISK_WARN_MB'),
      floorBytes: megabytesFromEnv('CUA_RECORD_DISK_FLOOR_MB'),
    };
    const idleS = numberFromEnv('CUA_RECORD_IDLE_WARN_S', 'seconds');
    const longMin = numberFromEnv('CUA_RECORD_LONG_WARN_MIN', 'minutes');
    const liveWarnings = {
      ...(idleS === undefined ? {} : { idleMs: idleS * 1000 }),
      ...(longMin === undefined ? {} : { longRecordingMs: longMin * 60_000 }),
    };
    const stopChord = values['stop-hotkey'] ?? DEFAULT_HOTKEYS.stop;
    const pauseChord = values['pause-hotkey'] ?? DEFAULT_HOTKEYS.pause;
    const abort = new AbortController();
    // listening for the whole command: a repeated Ctrl+C while the recording is being saved must
    // not fall through to Node's default handler (exit 130, no summary, the recording left for
    // recovery); it is said once and otherwise ignored
    let isRepeatSaid = false;
    const onSignal = () => {
      if (!abort.signal.aborted) {
        abort.abort();
      } else if (!isRepeatSaid) {
        isRepeatSaid = true;
        errLine(
          'recorder: still saving the recording, please wait (further Ctrl+C is ignored; kill -9 abandons it to recovery)',
        );
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const r = await withServices(
        values.library,
        async (services) => {
          // a hub task: claimed (or the claim renewed) before anything starts
          const task =
            teamTaskId === undefined ? null : await taskToRecord(services.lib, Number(teamTaskId));
          if (task) {
            errLine(
              `recorder: task ${task.id} claimed until ${new Date(task.expiresAtMs).toISOString()}`,
            );
          }
          const recorded = await services.record({
            task: task ? task.instruction : values.task!,
            ...(task ? { teamTaskId: task.id } : {}),
            fps,
            durationS,
            display: values.display,
            noA11y: values['no-a11y'],
            excludeApps,
            excludeTitles,
            hotkeys: {
              ...(values['stop-hotkey'] ? { stop: values['stop-hotkey'] } : {}),
              ...(values['pause-hotkey'] ? { pause: values['pause-hotkey'] } : {}),
            },
            signal: abort.signal,
            disk,
            liveWarnings,
            onStarted: ({ id }) => {
              if (values.json) {
                errLine(`recording ${id}`);
              } else {
                out(id);
              }
              errLine(
                `recorder: stop with Ctrl+C or ${stopChord}; pause and resume with ${pauseChord}`,
              );
            },
            onStateChange: (state) => errLine(`recorder: ${state}`),
            onWarning: (m) => errLine(`warning: ${m}`),
          });
          // the saved recording's keyframes (queued by the composition root), before closing
          await services.keyframeJobs.idle();
          return recorded;
        },
        { create: true },
      );
      if (values.json) {
        const { error } = r;
        outJson({
          ...r,
          error: error ? { code: error.code, message: error.message, fix: error.fix } : null,
        });
      } else {
        out(
          `recorded ${r.id}: ${formatDuration(r.durationMs)}, ${r.frames} frames, ${r.events} events, ${r.steps} steps (${r.status})`,
        );
        // the warning about the fault that ended the recording is the error line below
        for (const w of r.warnings.filter((x) => !r.error || !x.includes(r.error.message))) {
          errLine(`warning: ${w}`);
        }
      }
      if (r.error) {
        // the summary above says what was saved; the error (code + fix) says why it ended
        throw r.error;
      }
      return r.status === 'complete' ? 0 : 2;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
});

// A size in MB from the environment, in bytes; undefined when unset.
function megabytesFromEnv(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') {
    return undefined;
  }
  const mb = Number(text);
  if (!(mb >= 0)) {
    throw new UsageError(`${name} must be a number of megabytes (got "${text}")`);
  }
  return mb * 1024 * 1024;
}

// A non-negative number from the environment; undefined when unset.
function numberFromEnv(name: string, unit: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') {
    return undefined;
  }
  const n = Number(text);
  if (!(n >= 0)) {
    throw new UsageError(`${name} must be a number of ${unit} (got "${text}")`);
  }
  return n;
}
