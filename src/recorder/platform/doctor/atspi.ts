// The Linux platform's doctor check of accessibility (docs/platform-linux.md §3): a session D-Bus
// whose org.a11y.Bus answers (AT-SPI); without it recordings have no accessibility tree.
import { tailLines } from '../../../infra/lines';
import { ProcessStartError, runCommand } from '../../../infra/run-command';
import type { CommandResult } from '../../../infra/run-command';
import type { PlatformCheck } from '../types';

const ATSPI_LAUNCH =
  '/usr/libexec/at-spi-bus-launcher --launch-immediately & (from a shell where DISPLAY and ' +
  'DBUS_SESSION_BUS_ADDRESS are set)';

// Asks the session bus for the AT-SPI bus address (dbus-send), with the fix for each way it fails.
export async function checkAtspi(
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<PlatformCheck> {
  const base = { id: 'atspi', severity: 'warning' } as const;
  const consequence = 'recordings will have no accessibility tree';
  const address = env.DBUS_SESSION_BUS_ADDRESS?.trim() ?? '';
  if (address === '') {
    return {
      ...base,
      ok: false,
      summary: `DBUS_SESSION_BUS_ADDRESS is not set: no session D-Bus, ${consequence}`,
      fix:
        'apt-get install dbus-x11 at-spi2-core, start a session bus with ' +
        '`eval "$(dbus-launch --sh-syntax)"`, then ' +
        ATSPI_LAUNCH,
    };
  }

  let result: CommandResult;
  try {
    result = await runCommand(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        `--reply-timeout=${Math.max(1, timeoutMs - 500)}`,
        '--dest=org.a11y.Bus',
        '/org/a11y/bus',
        'org.a11y.Bus.GetAddress',
      ],
      { env, timeoutMs },
    );
  } catch (error) {
    if (error instanceof ProcessStartError) {
      return {
        ...base,
        ok: false,
        summary: `cannot ask the session bus for AT-SPI: dbus-send is not installed (${consequence})`,
        fix: 'apt-get install dbus-bin at-spi2-core (dbus-bin provides dbus-send)',
      };
    }
    throw error;
  }

  if (result.code === 0 && !result.isTimedOut) {
    const busAddress = /string "([^"]*)"/.exec(result.stdout)?.[1];
    return {
      ...base,
      ok: true,
      summary: `AT-SPI bus answers${busAddress ? ` at ${busAddress}` : ''}`,
    };
  }

  const reason = result.isTimedOut ? 'dbus-send timed out' : tailLines(result.stderr, 1);
  if (/ServiceUnknown|was not provided/.test(result.stderr)) {
    return {
      ...base,
      ok: false,
      summary: `the session bus has no org.a11y.Bus (AT-SPI is not running): ${consequence}`,
      fix: `apt-get install at-spi2-core, then ${ATSPI_LAUNCH}`,
    };
  }
  return {
    ...base,
    ok: false,
    summary: `session D-Bus at ${address} does not answer (${reason || 'no reply'}): ${consequence}`,
    fix:
      'start a session bus and export its address: ' +
      '`dbus-daemon --session --fork --address=unix:path=$XDG_RUNTIME_DIR/bus` and ' +
      '`export DBUS_SESSION_BUS_ADDRESS=unix:path=$XDG_RUNTIME_DIR/bus` ' +
      '(or `eval "$(dbus-launch --sh-syntax)"`), then ' +
      ATSPI_LAUNCH,
  };
}
