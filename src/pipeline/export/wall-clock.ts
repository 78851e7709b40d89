// AgentNet's wall-clock strings: `YYYY-MM-DD hh:mm:ss`, local time, whole seconds
// (metadata.json `start_time`/`stop_time`; docs/agentnet-raw-format.md §3, §5, fixture §15.2).

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** ISO 8601 with a zone (`2026-12-01T13:44:37.003Z`, `…+01:00`); AgentNet strings do not match. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** `date` as AgentNet writes it, in the local time zone of this process (seconds truncated,
 * as Python's `strftime` does). */
export function agentNetWallClock(date: Date): string {
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** An ISO time string turned into AgentNet's form; any other value (already AgentNet's form, as
 * imported, or empty) is returned unchanged. */
export function toAgentNetWallClock(value: unknown): unknown {
  if (typeof value !== 'string' || !ISO_WITH_ZONE.test(value)) {
    return value;
  }
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : agentNetWallClock(date);
}

/** The local time zone's name and UTC offset at `date` (`Europe/Berlin`, `+01:00`). */
export function localTimeZone(date: Date): { name: string; utcOffset: string } {
  const offsetMin = -date.getTimezoneOffset();
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return {
    name: Intl.DateTimeFormat().resolvedOptions().timeZone,
    utcOffset: `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`,
  };
}
