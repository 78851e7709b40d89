// `cua-annotator cot <id…>`: OpenCUA's reflective chain-of-thought for every step (docs/cot.md),
// from any OpenAI-compatible vision model, resumable, stored in the library.
import { cotRecordings, type CotBatchItem } from '../../services/create-services';
import { UsageError } from '../args';
import { defineCommand, type Command } from '../command';
import { withServices } from '../context';
import { createProgress, errLine, out, outJson } from '../output';

const HELP = `Usage: cua-annotator cot <id…> --model NAME [--base-url URL] [--concurrency N]
                         [--rpm N] [--max-cost AMOUNT --price-in P --price-out P]
                         [--double-check] [--upstream-quirks] [--redo] [--all] [--json]
                         [--library DIR]

Adds OpenCUA's reflective chain of thought to every step of the recordings: an observation, a
thought (with a reflection on the step before) and a natural-language action per step, and a
summary per recording (task completed, alignment and efficiency scores, difficulty, the actual
task). It sends upstream's prompts and images (data/cot-generate of xlang-ai/OpenCUA) to any
OpenAI-compatible chat-completions endpoint. A step a reviewer marked correct or incorrect keeps
the reviewer's verdict: the model only writes its reflection.

Each finished step is stored at once: run the command again after an interruption and it goes
on at the next step; steps already stored are never asked for again unless they changed (an
edit, a new mark). The agentnet-jsonl export writes the results.

The API key is read from CUA_COT_API_KEY, else OPENAI_API_KEY; it is never stored or printed
(a server on this machine may need none).

Options:
  --model NAME          the model (required), e.g. gpt-4o or a local server's model
  --base-url URL        the API root (default https://api.openai.com/v1)
  --concurrency N       recordings and requests at once (default 1, as upstream)
  --rpm N               at most N requests started per minute (default: no limit)
  --max-cost AMOUNT     stop before a request once the estimated cost reaches AMOUNT
  --price-in P          price per million prompt tokens (for --max-cost)
  --price-out P         price per million completion tokens (for --max-cost)
  --double-check        a second generator turn asking the model to check itself (upstream
                        --need_double_check; here the check is filled with the first answer)
  --upstream-quirks     reproduce upstream's output-changing defects (docs/cot.md §6)
                        in the steps this run makes (with --redo: in every step)
  --redo                forget the stored CoT of these recordings and ask for all of it again
  --all                 every recording of the library
  --json                print JSON
  --library DIR         library folder
  -h, --help            show this help`;

const positiveNumber = (name: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) {
    return undefined;
  }
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw new UsageError(`--${name} must be a positive number, got ${JSON.stringify(raw)}`);
  }
  return n;
};

const describe = (r: CotBatchItem): string =>
  r.ok
    ? `${r.recordingId.slice(0, 8)}  ${r.totalSteps} steps: ${r.generatedSteps} generated, ` +
      `${r.reusedSteps} already stored${r.skippedSteps ? `, ${r.skippedSteps} without code` : ''}; ` +
      `summary ${r.isSummaryGenerated ? 'generated' : 'already stored'} (${r.usage.calls} calls)`
    : `${r.recordingId.slice(0, 8)}  failed: [${r.code}] ${r.message}${r.fix ? `\n          ${r.fix}` : ''}`;

/** The `cot` command. */
export const cotCommand: Command = defineCommand({
  name: 'cot',
  summary: 'add OpenCUA reasoning (observation, thought, action, reflection) to every step',
  help: HELP,
  options: {
    model: { type: 'string' },
    'base-url': { type: 'string' },
    concurrency: { type: 'string' },
    rpm: { type: 'string' },
    'max-cost': { type: 'string' },
    'price-in': { type: 'string' },
    'price-out': { type: 'string' },
    'double-check': { type: 'boolean' },
    'upstream-quirks': { type: 'boolean' },
    redo: { type: 'boolean' },
    all: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  run: async ({ values, positionals }) => {
    if (!values.model) {
      throw new UsageError('cot needs --model NAME (the model the endpoint serves)');
    }
    if (!values.all && !positionals.length) {
      throw new UsageError('cot takes one or more recording ids, or --all');
    }
    const concurrency = positiveNumber('concurrency', values.concurrency);
    if (concurrency !== undefined && !Number.isSafeInteger(concurrency)) {
      throw new UsageError(`--concurrency must be a whole number, got ${values.concurrency}`);
    }
    const maxCost = positiveNumber('max-cost', values['max-cost']);
    const priceIn = positiveNumber('price-in', values['price-in']);
    const priceOut = positiveNumber('price-out', values['price-out']);
    if (maxCost !== undefined && (priceIn === undefined || priceOut === undefined)) {
      throw new UsageError('--max-cost needs --price-in and --price-out to estimate the cost');
    }
    const model = values.model;
    const result = await withServices(values.library, async (services) => {
      const ids = values.all ? services.listRecordings().map((r) => r.id) : positionals;
      if (!ids.length) {
        throw new UsageError('the library has no recordings');
      }
      const totals = new Map<string, { done: number; total: number }>();
      let sum = { done: 0, total: 0 };
      // steps of all recordings (each counts its summary as one more), shown as a percentage:
      // a recording's step count is known once it is read
      const progress = createProgress(100, Boolean(process.stderr.isTTY) && !values.json);
      const interrupt = new AbortController();
      const onSignal = () => interrupt.abort();
      process.once('SIGINT', onSignal);
      try {
        return await cotRecordings(services.lib, ids, {
          model,
          ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
          ...(concurrency ? { concurrency } : {}),
          ...(values.rpm ? { requestsPerMinute: positiveNumber('rpm', values.rpm)! } : {}),
          ...(maxCost !== undefined ? { maxCost } : {}),
          ...(priceIn !== undefined && priceOut !== undefined
            ? { prices: { inputPerMillion: priceIn, outputPerMillion: priceOut } }
            : {}),
          isDoubleCheck: values['double-check'] ?? false,
          isUpstreamQuirks: values['upstream-quirks'] ?? false,
          isRedo: values.redo ?? false,
          signal: interrupt.signal,
          onProgress: (p) => {
            totals.set(p.recordingId, {
              done: p.done + (p.phase === 'summary' ? 1 : 0),
              total: p.total + 1,
            });
            sum = [...totals.values()].reduce(
              (a, t) => ({ done: a.done + t.done, total: a.total + t.total }),
              { done: 0, total: 0 },
            );
            progress.update(
              Math.floor((sum.done / Math.max(1, sum.total)) * 100),
              `% ${sum.done}/${sum.total} ${p.recordingId.slice(0, 8)} ${p.phase}`,
            );
          },
          onRetry: (r) => {
            if (!values.json) {
              errLine(
                `retrying after ${r.code} in ${(r.delayMs / 1000).toFixed(1)} s (attempt ${r.attempt})`,
              );
            }
          },
        });
      } finally {
        process.off('SIGINT', onSignal);
        progress.finish();
      }
    });
    const failed = result.recordings.filter((r) => !r.ok);
    if (values.json) {
      outJson(result);
      return failed.length ? 1 : 0;
    }
    for (const r of result.recordings) {
      out(describe(r));
    }
    out(
      `${result.calls} calls (${result.retries} retries), ${result.promptTokens} prompt + ` +
        `${result.completionTokens} completion tokens` +
        (result.cost ? `, estimated cost ${result.cost.toFixed(4)}` : ''),
    );
    return failed.length ? 1 : 0;
  },
});
