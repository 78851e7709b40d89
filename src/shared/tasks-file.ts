// Task files for `tasks import` (docs/team-mode.md §16): JSONL (one JSON object per line) or CSV
// (RFC 4180: a header row, fields in double quotes may hold commas, quotes doubled, and line
// breaks), parsed into task rows with the line each came from, and a per-line error for every
// line that is not a task. Pure: the hub parses what a client sends, a page can preview with it.

/** The platforms a task can be for; `any` fits every annotator. */
export const TASK_PLATFORMS = ['win', 'mac', 'ubuntu', 'any'] as const;
/** One of {@link TASK_PLATFORMS}. */
export type TaskPlatform = (typeof TASK_PLATFORMS)[number];
/** Task statuses: open (claimable), closed (target reached or by an admin), infeasible
 * (enough annotators reported it cannot be done: waits for an admin). */
export const TASK_STATUSES = ['open', 'closed', 'infeasible'] as const;
/** One of {@link TASK_STATUSES}. */
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** Formats of a task file. */
export const TASK_FILE_FORMATS = ['jsonl', 'csv'] as const;
/** One of {@link TASK_FILE_FORMATS}. */
export type TaskFileFormat = (typeof TASK_FILE_FORMATS)[number];

/** Longest instruction, characters. */
export const TASK_INSTRUCTION_MAX = 10_000;
/** Longest description, characters. */
export const TASK_DESCRIPTION_MAX = 20_000;
/** Longest domain / app / tag, characters. */
export const TASK_NAME_MAX = 200;
/** Longest URL, characters. */
export const TASK_URL_MAX = 2_000;
/** Largest target count. */
export const TASK_TARGET_MAX = 100_000;
/** Most tags on a task. */
export const TASK_TAGS_MAX = 50;
/** Most tasks in one file. */
export const TASK_FILE_MAX_ROWS = 50_000;

/** One task as a file gives it (status starts open). */
export type TaskInput = {
  instruction: string;
  description: string;
  domain: string;
  app: string;
  url: string;
  platform: TaskPlatform;
  target: number;
  tags: string[];
};

/** A task of the file with the line it starts on (1-based; a CSV's header is line 1). */
export type TaskFileRow = { line: number; task: TaskInput };
/** A line that is not a task, and why. */
export type TaskFileError = { line: number; message: string };
/** A parsed task file. */
export type ParsedTaskFile = { rows: TaskFileRow[]; errors: TaskFileError[] };

// the fields a file may give, with the spellings accepted for them
const FIELD_ALIASES: Record<string, keyof TaskInput> = {
  instruction: 'instruction',
  task: 'instruction',
  description: 'description',
  domain: 'domain',
  category: 'domain',
  app: 'app',
  website: 'app',
  url: 'url',
  platform: 'platform',
  os: 'platform',
  target: 'target',
  tags: 'tags',
};

const PLATFORM_ALIASES: Record<string, TaskPlatform> = {
  win: 'win',
  windows: 'win',
  mac: 'mac',
  macos: 'mac',
  darwin: 'mac',
  ubuntu: 'ubuntu',
  linux: 'ubuntu',
  any: 'any',
  '': 'any',
};

/** The key two instructions share when they are duplicates: Unicode-normalised (NFKC),
 * lower-cased, with every run of whitespace one space and none at either end. */
export function instructionKey(instruction: string): string {
  return instruction.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** The format a file name implies (.jsonl / .ndjson / .json lines, or .csv), or null. */
export function taskFileFormatOf(fileName: string): TaskFileFormat | null {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.csv')) {
    return 'csv';
  }
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson') || lower.endsWith('.json')) {
    return 'jsonl';
  }
  return null;
}

class RowProblem extends Error {}

function textOf(value: unknown, field: string, max: number): string {
  if (value === undefined || value === null) {
    return '';
  }
  if (typeof value !== 'string') {
    throw new RowProblem(`"${field}" must be text, got ${JSON.stringify(value)}`);
  }
  const t = value.trim();
  if (t.length > max) {
    throw new RowProblem(`"${field}" is longer than ${max} characters (${t.length})`);
  }
  // eslint-disable-next-line no-control-regex -- one-line fields: no control characters
  if (field !== 'description' && field !== 'instruction' && /[\u0000-\u001f\u007f]/.test(t)) {
    throw new RowProblem(`"${field}" must not contain control characters or line breaks`);
  }
  return t;
}

function targetOf(value: unknown): number {
  if (value === undefined || value === null || value === '') {
    return 1;
  }
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > TASK_TARGET_MAX) {
    throw new RowProblem(
      `"target" must be a whole number from 1 to ${TASK_TARGET_MAX}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

function tagsOf(value: unknown): string[] {
  if (value === undefined || value === null || value === '') {
    return [];
  }
  let list: unknown[];
  if (typeof value === 'string') {
    list = value.split(/[;,]/);
  } else if (Array.isArray(value)) {
    list = value;
  } else {
    throw new RowProblem(`"tags" must be a list of text or "a;b;c", got ${JSON.stringify(value)}`);
  }
  const tags: string[] = [];
  for (const t of list) {
    const tag = textOf(t, 'tags', TASK_NAME_MAX);
    if (tag && !tags.includes(tag)) {
      tags.push(tag);
    }
  }
  if (tags.length > TASK_TAGS_MAX) {
    throw new RowProblem(`at most ${TASK_TAGS_MAX} tags (got ${tags.length})`);
  }
  return tags;
}

/** Checks one task given as field → value (from a JSON object or a CSV record); throws a
 * message naming the field at fault. */
export function taskFromFields(fields: Record<string, unknown>): TaskInput {
  const given: Partial<Record<keyof TaskInput, unknown>> = {};
  for (const [rawKey, value] of Object.entries(fields)) {
    const key = FIELD_ALIASES[rawKey.trim().toLowerCase()];
    if (!key) {
      throw new RowProblem(
        `unknown field "${rawKey}" (known: ${Object.keys(FIELD_ALIASES).join(', ')})`,
      );
    }
    if (given[key] !== undefined) {
      throw new RowProblem(`"${key}" is given twice`);
    }
    given[key] = value;
  }
  const instruction = textOf(given.instruction, 'instruction', TASK_INSTRUCTION_MAX);
  if (!instruction) {
    throw new RowProblem('"instruction" is missing or empty');
  }
  const platformText = textOf(given.platform, 'platform', TASK_NAME_MAX).toLowerCase();
  const platform = PLATFORM_ALIASES[platformText];
  if (!platform) {
    throw new RowProblem(
      `"platform" must be one of ${TASK_PLATFORMS.join(', ')}, got ${JSON.stringify(platformText)}`,
    );
  }
  const url = textOf(given.url, 'url', TASK_URL_MAX);
  if (url && !/^https?:\/\/[^\s]+$/i.test(url)) {
    throw new RowProblem(`"url" must be an http(s) address, got ${JSON.stringify(url)}`);
  }
  return {
    instruction,
    description: textOf(given.description, 'description', TASK_DESCRIPTION_MAX),
    domain: textOf(given.domain, 'domain', TASK_NAME_MAX),
    app: textOf(given.app, 'app', TASK_NAME_MAX),
    url,
    platform,
    target: targetOf(given.target),
    tags: tagsOf(given.tags),
  };
}

function problemOf(e: unknown): string {
  if (e instanceof RowProblem) {
    return e.message;
  }
  throw e;
}

function parseJsonl(text: string): ParsedTaskFile {
  const rows: TaskFileRow[] = [];
  const errors: TaskFileError[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = i + 1;
    if (raw.trim() === '') {
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      errors.push({ line, message: `not JSON: ${(e as Error).message}` });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      errors.push({ line, message: 'must be a JSON object ({"instruction": …})' });
      continue;
    }
    try {
      rows.push({ line, task: taskFromFields(value as Record<string, unknown>) });
    } catch (e) {
      errors.push({ line, message: problemOf(e) });
    }
  }
  return { rows, errors };
}

/** One CSV record: its fields and the line it starts on. */
export type CsvRecord = { line: number; fields: string[] };

/** Splits CSV text into records (RFC 4180): `,` between fields, CRLF or LF between records;
 * a field in double quotes may hold commas, line breaks and `""` for a quote. A leading BOM is
 * dropped; blank lines are skipped. A quote inside an unquoted field, text after a closing
 * quote, or a quote left open is an error of the record it is in (parsing goes on at the next
 * line, or stops for a quote left open). */
export function parseCsv(text: string): { records: CsvRecord[]; errors: TaskFileError[] } {
  const records: CsvRecord[] = [];
  const errors: TaskFileError[] = [];
  const s = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let i = 0;
  let line = 1;
  while (i < s.length) {
    const startLine = line;
    const fields: string[] = [];
    let problem: string | null = null;
    let endOfRecord = false;
    while (!endOfRecord) {
      let field = '';
      if (s[i] === '"') {
        i += 1;
        let closed = false;
        while (i < s.length) {
          const c = s[i]!;
          if (c === '"') {
            if (s[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i += 1;
            closed = true;
            break;
          }
          if (c === '\n') {
            line += 1;
          }
          field += c;
          i += 1;
        }
        if (!closed) {
          errors.push({ line: startLine, message: 'a quoted field is never closed' });
          return { records, errors };
        }
        if (i < s.length && s[i] !== ',' && s[i] !== '\n' && s[i] !== '\r') {
          problem ??= 'text after a closing quote (a quote inside a field is written "")';
        }
      }
      // unquoted text (or what follows a closing quote, already reported)
      while (i < s.length && s[i] !== ',' && s[i] !== '\n' && s[i] !== '\r') {
        if (s[i] === '"' && !problem) {
          problem = 'a quote inside an unquoted field (quote the whole field and double it)';
        }
        field += s[i];
        i += 1;
      }
      fields.push(field);
      if (s[i] === ',') {
        i += 1;
        continue;
      }
      // end of the record: CRLF, LF, a lone CR, or the end of the text
      if (s[i] === '\r') {
        i += 1;
      }
      if (s[i] === '\n') {
        i += 1;
      }
      line += 1;
      endOfRecord = true;
    }
    if (problem) {
      errors.push({ line: startLine, message: problem });
    } else if (!(fields.length === 1 && fields[0]!.trim() === '')) {
      records.push({ line: startLine, fields });
    }
  }
  return { records, errors };
}

function parseCsvTasks(text: string): ParsedTaskFile {
  const { records, errors } = parseCsv(text);
  const rows: TaskFileRow[] = [];
  const [header, ...body] = records;
  if (!header) {
    if (!errors.length) {
      errors.push({ line: 1, message: 'the file has no header row (instruction,platform,…)' });
    }
    return { rows, errors };
  }
  const names = header.fields.map((f) => f.trim());
  const unknown = names.filter((n) => !FIELD_ALIASES[n.toLowerCase()]);
  if (unknown.length || !names.some((n) => FIELD_ALIASES[n.toLowerCase()] === 'instruction')) {
    errors.push({
      line: header.line,
      message: unknown.length
        ? `unknown column(s) ${unknown.map((n) => `"${n}"`).join(', ')} in the header ` +
          `(known: ${Object.keys(FIELD_ALIASES).join(', ')})`
        : 'the header has no "instruction" column',
    });
    // without a usable header no row can be read: each is named, none imported
    for (const r of body) {
      errors.push({ line: r.line, message: 'not read: the header row is not usable' });
    }
    return { rows, errors: errors.sort((a, b) => a.line - b.line) };
  }
  for (const r of body) {
    if (r.fields.length !== names.length) {
      errors.push({
        line: r.line,
        message: `has ${r.fields.length} field(s), the header ${names.length}`,
      });
      continue;
    }
    const fields: Record<string, unknown> = {};
    names.forEach((n, k) => {
      fields[n] = r.fields[k];
    });
    try {
      rows.push({ line: r.line, task: taskFromFields(fields) });
    } catch (e) {
      errors.push({ line: r.line, message: problemOf(e) });
    }
  }
  return { rows, errors: errors.sort((a, b) => a.line - b.line) };
}

/** Parses a task file: its tasks with their lines, and every line that is not one. A file of
 * more than {@link TASK_FILE_MAX_ROWS} tasks is one error (split it). */
export function parseTaskFile(text: string, format: TaskFileFormat): ParsedTaskFile {
  const parsed = format === 'csv' ? parseCsvTasks(text) : parseJsonl(text);
  if (parsed.rows.length > TASK_FILE_MAX_ROWS) {
    return {
      rows: [],
      errors: [
        {
          line: 1,
          message: `more than ${TASK_FILE_MAX_ROWS} tasks (${parsed.rows.length}): split the file`,
        },
      ],
    };
  }
  return parsed;
}

/** Where a local recording keeps the hub task it was recorded for: this key of its source
 * metadata (`record --task-id`, `submit --task-id`; exports read it). */
export const TEAM_TASK_ID_KEY = 'teamTaskId';

/** The hub task id a recording's source metadata names, or null. */
export function teamTaskIdOf(sourceMetadata: Record<string, unknown> | null): number | null {
  const v = sourceMetadata?.[TEAM_TASK_ID_KEY];
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}
