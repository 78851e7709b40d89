// `cua-annotator doctor`: checks what recording needs and says exactly what to fix.
import { resolveLibraryDir } from '../../services/library/library-path';
import { formatDoctorReport, runDoctor } from '../../services/system/doctor';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { out, outJson } from '../output';

const HELP = `Usage: cua-annotator doctor [--json] [--library DIR]

Checks what recording needs on this machine: DISPLAY and the X RECORD extension (input capture),
ffmpeg (path, version, x11grab, libx264), the AT-SPI accessibility bus, and that the library
folder is writable. Prints what to install or enable for each failed check.

Options:
  --json          print the report as JSON
  --library DIR   library folder to check
  -h, --help      show this help

Exit code 0 when recording can work (warnings allowed), 2 when a required check failed.`;

/** The `doctor` command. */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check this machine for recording (X11, RECORD, ffmpeg, AT-SPI, library)',
  help: HELP,
  run: async (argv) => {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } });
    if (values.help) {
      out(HELP);
      return 0;
    }
    if (positionals.length) {
      throw new UsageError(`doctor takes no arguments (got "${positionals.join(' ')}")`);
    }
    const { dir } = resolveLibraryDir({ flag: values.library });
    const report = await runDoctor(process.env, { libraryDir: dir });
    if (values.json) {
      outJson(report);
    } else {
      out(formatDoctorReport(report));
    }
    return report.ok ? 0 : 2;
  },
};
