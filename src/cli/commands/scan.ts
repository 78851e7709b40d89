// `cua-annotator scan <id>`: the PII scan of one recording (findings are not an error: exit 0).
import { BLOCKING_PII_KINDS, PII_KINDS, type PiiFinding } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { UsageError } from '../args';
import { defineCommand, unwrapResult, type Command } from '../command';
import { withServices } from '../context';
import { out, outJson } from '../output';

const HELP = `Usage: cua-annotator scan <id> [--json] [--library DIR]
       cua-annotator scan <id> --accept FINDING_ID [--note TEXT] [--force] [--json]
       cua-annotator scan <id> --redact FINDING_ID... [--force] [--json]
       cua-annotator scan <id> --redact-all [--force] [--json]

Scans one recording for personal data and secrets before it leaves the machine: e-mail
addresses, phone numbers, card numbers (Luhn-checked), IBANs (checksum), secret keys and
tokens, and IP addresses. It reads the typed text (the steps with edits applied, and the raw
key events), window titles, accessibility names and values, the task text and the labels.
Nothing is changed; excerpts are printed with the match masked. Findings are not an error:
the exit code is 0 whether or not something is found.
<id> may be a unique prefix of the id (at least 4 characters).

Findings of kind ${BLOCKING_PII_KINDS.join(', ')} block export and upload until resolved:
redacted (a redact-text edit) or marked acceptable with --accept (a pii-accept edit in the
edit log, undoable like any edit), or the export/upload is given --allow-pii.

Output: findings grouped by kind (step, time in s on the video, source, resolved, excerpt) and
a summary line. With --json:
  {"findings": [{"kind", "source", "stepIndex", "tMs", "excerpt", "id", "resolved"}]}
resolved: "accepted", "redacted" or null;
kind: ${PII_KINDS.join(', ')}; source: typed, window-title, accessibility, task, label;
stepIndex: the step the text belongs to or is nearest (null: none); tMs: recording clock, ms
(null: no time); id: stable across scans of the same data.

Redaction (--redact, repeatable, or --redact-all for every finding neither redacted nor
marked acceptable): each finding's text becomes a \`redact-text\` edit, undone with the edit
log's undo. The local data never changes; every export and upload replaces every occurrence
of the text with its kind's placeholder ([EMAIL], [PHONE], [CARD], [IBAN], [SECRET], [IP]) in
code, descriptions, task text, labels, window titles, accessibility data and raw key events.
With --json: {"redacted": [{"findingId", "kind", "source", "stepIndex", "placeholder",
"editId"}]}.

Options:
  --redact ID     redact finding ID's text (repeatable)
  --redact-all    redact every unresolved finding's text
  --accept ID     mark finding ID acceptable: it no longer blocks export and upload
  --note TEXT     with --accept: why it is acceptable (stored with the edit)
  --force         edit an accepted recording (it goes back to review)
  --json          print JSON for scripts
  --library DIR   library folder
  -h, --help      show this help`;

function timeText(tMs: number | null, videoStartMs: number | null): string {
  if (tMs === null) {
    return '-';
  }
  return videoStartMs === null
    ? `${Math.round(tMs)} ms`
    : `${((tMs - videoStartMs) / 1000).toFixed(1)} s`;
}

type Finding = PiiFinding & { resolved?: 'accepted' | 'redacted' | null | undefined };

/** A finding's source; a kept file of an import by its place in the recording (`raw/<name>`). */
const sourceText = (f: PiiFinding): string => (f.file === undefined ? f.source : `raw/${f.file}`);

function printFindings(id: string, findings: Finding[], videoStartMs: number | null): void {
  if (findings.length === 0) {
    out(`no findings in ${id}`);
    return;
  }
  const counts: string[] = [];
  for (const kind of PII_KINDS) {
    const group = findings.filter((f) => f.kind === kind);
    if (!group.length) {
      continue;
    }
    counts.push(`${group.length} ${kind}`);
    out(`${kind} (${group.length})`);
    out(
      `  ${'step'.padEnd(5)} ${'time'.padEnd(9)} ${'source'.padEnd(13)} ${'resolved'.padEnd(9)} ` +
        'excerpt',
    );
    for (const f of group) {
      out(
        `  ${(f.stepIndex === null ? '-' : String(f.stepIndex)).padEnd(5)} ` +
          `${timeText(f.tMs, videoStartMs).padEnd(9)} ${sourceText(f).padEnd(13)} ` +
          `${(f.resolved ?? '-').padEnd(9)} ${JSON.stringify(f.excerpt)}`,
      );
    }
  }
  const blocking = findings.filter(
    (f) => (BLOCKING_PII_KINDS as readonly string[]).includes(f.kind) && !f.resolved,
  ).length;
  out(
    `${findings.length} finding${findings.length === 1 ? '' : 's'} in ${id}: ` +
      `${counts.join(', ')}` +
      (blocking
        ? ` (${blocking} unresolved of kind ${BLOCKING_PII_KINDS.join('/')}: redact them or ` +
          'mark them acceptable with --accept ID before export and upload)'
        : ''),
  );
}

/** `scan --redact` / `--redact-all`: text redactions as edits, then what was redacted. */
async function runRedact(
  idOrPrefix: string,
  values: {
    redact?: string[] | undefined;
    'redact-all'?: boolean | undefined;
    force?: boolean | undefined;
    json?: boolean | undefined;
    library?: string | undefined;
  },
): Promise<number> {
  if (values.redact?.length && values['redact-all']) {
    throw new UsageError('give either --redact FINDING_ID or --redact-all, not both');
  }
  const options = { force: values.force ?? false };
  const { id, redacted } = await withServices(values.library, async (services) => {
    const view = services.showRecording(idOrPrefix);
    const made = values['redact-all']
      ? await services.redactAllFindings(view.id, options)
      : await services.redactFindings(view.id, values.redact ?? [], options);
    return { id: view.id, redacted: made };
  });
  if (values.json) {
    outJson({ redacted });
    return 0;
  }
  for (const r of redacted) {
    out(
      `redacted ${r.kind} ${r.findingId} (${r.source}, step ${r.stepIndex ?? '-'}) as ` +
        `${r.placeholder}: edit ${r.editId}`,
    );
  }
  out(
    redacted.length
      ? `${redacted.length} text redaction${redacted.length === 1 ? '' : 's'} added to ${id}`
      : `nothing to redact in ${id}`,
  );
  return 0;
}

/** `scan --accept`: a `pii-accept` edit for one finding of the current scan. */
async function runAccept(
  idOrPrefix: string,
  values: {
    accept: string;
    note?: string | undefined;
    redact?: string[] | undefined;
    'redact-all'?: boolean | undefined;
    force?: boolean | undefined;
    json?: boolean | undefined;
    library?: string | undefined;
  },
): Promise<number> {
  const findingId = values.accept.trim();
  if (!findingId) {
    throw new UsageError('--accept takes a finding id (see `scan <id> --json`)');
  }
  if (values.redact?.length || values['redact-all']) {
    throw new UsageError('give either --accept or --redact/--redact-all, not both');
  }
  const { id, finding } = await withServices(values.library, async (services) => {
    const view = services.showRecording(idOrPrefix);
    const scan = unwrapResult(await services.dispatch('privacy:scan', { id: view.id })) as {
      findings: Finding[];
    };
    const found = scan.findings.find((f) => f.id === findingId);
    if (!found) {
      throw new AppError(
        'NOT_FOUND',
        `Recording ${view.id} has no finding ${findingId}.`,
        { id: view.id, findingId },
        `List the finding ids with \`cua-annotator scan ${view.id} --json\`.`,
      );
    }
    unwrapResult(
      await services.dispatch('edits:apply', {
        id: view.id,
        edit: {
          op: 'pii-accept',
          findingId,
          ...(values.note !== undefined ? { note: values.note } : {}),
        },
        force: values.force ?? false,
      }),
    );
    return { id: view.id, finding: found };
  });
  const resolved = finding.resolved ?? 'accepted';
  if (values.json) {
    outJson({ accepted: { id: finding.id, kind: finding.kind, resolved } });
  } else {
    out(
      `accepted ${finding.kind} finding ${finding.id} of ${id} (${JSON.stringify(finding.excerpt)})`,
    );
  }
  return 0;
}

/** The `scan` command. */
export const scanCommand: Command = defineCommand({
  name: 'scan',
  summary: 'scan a recording for personal data and secrets (masked excerpts)',
  help: HELP,
  options: {
    json: { type: 'boolean' },
    redact: { type: 'string', multiple: true },
    'redact-all': { type: 'boolean' },
    accept: { type: 'string' },
    note: { type: 'string' },
    force: { type: 'boolean' },
  },
  args: { exactly: 1, usage: 'scan takes exactly one recording id' },
  run: async ({ values, positionals }) => {
    const idOrPrefix = positionals[0] ?? '';
    if (values.accept !== undefined) {
      return runAccept(idOrPrefix, { ...values, accept: values.accept });
    }
    if (values.note !== undefined) {
      throw new UsageError('--note goes with --accept FINDING_ID');
    }
    if (values.redact?.length || values['redact-all']) {
      return runRedact(idOrPrefix, values);
    }
    const { id, videoStartMs, findings } = await withServices(
      values.library,
      async (services) => {
        const view = services.showRecording(idOrPrefix);
        // with each finding's resolution (pii-accept / redact-text edits)
        const scan = unwrapResult(await services.dispatch('privacy:scan', { id: view.id })) as {
          findings: Finding[];
        };
        return { id: view.id, videoStartMs: view.video?.startMs ?? null, findings: scan.findings };
      },
      { readOnly: true }, // a scan without --accept/--redact reads only: works read-only
    );
    if (values.json) {
      outJson({
        findings: findings.map((f) => ({
          kind: f.kind,
          source: f.source,
          stepIndex: f.stepIndex,
          tMs: f.tMs,
          excerpt: f.excerpt,
          id: f.id,
          resolved: f.resolved ?? null,
          ...(f.file === undefined ? {} : { file: f.file }),
        })),
      });
      return 0;
    }
    printFindings(id, findings, videoStartMs);
    return 0;
  },
});
