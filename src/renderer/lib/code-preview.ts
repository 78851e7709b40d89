// A preview of the PyAutoGUI code of calls while they are being edited. The saved step's `code`
// comes from the service (Python-exact formatting lives in the pipeline); this is close enough to
// read: floats rounded to 4 decimals, strings in Python quotes.
import type { ActionCall, PyValue } from '../../shared/domain';

const COMPUTER_CALLS: ReadonlySet<string> = new Set(['tripleClick', 'wait', 'terminate']);
const BARE_KEYS: ReadonlySet<string> = new Set(['clicks', 'amount']);

function pyString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t')
    .replace(/\r/g, '\\r');
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

function pyFloat(v: number): string {
  const r = Math.round(v * 10_000) / 10_000;
  return Number.isInteger(r) ? `${r}.0` : String(r);
}

function repr(value: PyValue): string {
  if (value === null) {
    return 'None';
  }
  if (typeof value === 'boolean') {
    return value ? 'True' : 'False';
  }
  if (typeof value === 'string') {
    return pyString(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(repr).join(', ')}]`;
  }
  if ('int' in value) {
    return String(value.int);
  }
  return pyFloat(value.float);
}

// One call as code, e.g. `pyautogui.click(x=0.5, y=0.5)`.
export function callPreview(call: ActionCall): string {
  const prefix = COMPUTER_CALLS.has(call.name) ? 'computer' : 'pyautogui';
  if (Array.isArray(call.args)) {
    return `${prefix}.${call.name}(${call.args.map(repr).join(', ')})`;
  }
  const entries = Object.entries(call.args);
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only && BARE_KEYS.has(only[0])) {
    return `${prefix}.${call.name}(${repr(only[1])})`;
  }
  return `${prefix}.${call.name}(${entries.map(([k, v]) => `${k}=${repr(v)}`).join(', ')})`;
}

// The calls as code lines joined with "\n".
export function callsPreview(calls: readonly ActionCall[]): string {
  return calls.map(callPreview).join('\n');
}
