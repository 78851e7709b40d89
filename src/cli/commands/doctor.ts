// `cua-annotator doctor`: checks what recording needs and says exactly what to fix.
import { resolveLibraryDir, runDoctor } from '../../services/create-services';
import { defineCommand, type Command } from '../command';
import { out, outJson } from '../output';

const HELP = `Usage: cua-annotator doctor [--repair] [--json] [--library DIR]

Checks what recording needs on this machine: DISPLAY and the X RECORD extension (input capture),
a window manager (the window timeline), ffmpeg (path, version, x11grab, libx264), the AT-SPI
accessibility bus, that the library folder is writable, and the library's database itself
(readable, a schema version this build knows, SQLite's integrity check) and leftovers of
interrupted imports and deletes. Prints what to install, enable or run for each failed check.
Doctor changes nothing unless --repair is given.

Options:
  --repair        run the safe fixes: remove leftovers of interrupted imports, pulls and deletes
                  that no running process owns, and say what was removed
  --json          print the report as JSON
  --library DIR   library folder to check
  -h, --help      show this help

Exit code 0 when recording can work (warnings allowed), 2 when a required check failed.`;

/** The `doctor` command. */
export const doctorCommand: Command = defineCommand({
  name: 'doctor',
  summary: 'check this machine for recording (X11, RECORD, ffmpeg, AT-SPI, library)',
  help: HELP,
  options: {
    json: { type: 'boolean' },
    repair: { type: 'boolean' },
  },
  args: { none: true },
  run: async ({ values }) => {
    const { dir } = resolveLibraryDir({ flag: values.library });
    const { report, text } = await runDoctor(process.env, {
      libraryDir: dir,
      repair: values.repair,
    });
    if (values.json) {
      outJson(report);
    } else {
      out(text);
    }
    return report.ok ? 0 : 2;
  },
});
