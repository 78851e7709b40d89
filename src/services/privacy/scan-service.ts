// The PII scan of one recording (`cua-annotator scan`, `privacy:scan`): every text that could
// leave the machine with it, run through the detectors. Typed text is read twice: from the shown
// steps (edits applied) and from a fresh reduction of the raw key events, since the raw events
// leave with an export even when the recording was never reduced or an edit dropped the step.
import type { PiiFinding } from '../../shared/domain';
import { findPii, maskExcerpt } from '../../pipeline/privacy/detect';
import { reduce, type ReducePlatform } from '../../pipeline/reduce';
import {
  getRecording,
  iterateAxTexts,
  listWindows,
  readEvents,
  readLabelData,
  readRecordingTexts,
} from '../../store';
import type { Library } from '../library/library';
import { effectiveSteps } from '../steps';
import { readPrivacySettings } from '../settings/settings-service';
import { FindingCollector, type FindPii, type MaskExcerpt } from './findings';
import { rawFileScanTexts, rawFilesOf, rawTextPieces } from './raw-files';
import { axStrings, jsonStrings, stepLabelTexts, typedTexts } from './scan-texts';

/** What a scan found. */
export type ScanResult = { findings: PiiFinding[] };

/** Options of {@link scanRecording} (tests swap the detectors). */
export type ScanOptions = {
  /** Default: src/pipeline/privacy/detect.ts's `findPii`. */
  findPii?: FindPii;
  /** Default: src/pipeline/privacy/detect.ts's `maskExcerpt`. */
  maskExcerpt?: MaskExcerpt;
};

const PLATFORMS: readonly ReducePlatform[] = ['win32', 'darwin', 'linux'];
/** The AgentNet file the imported metadata comes from (docs/agentnet-raw-format.md). */
const METADATA_FILE = 'metadata.json';

/** Scans a recording (full id or unique prefix; NOT_FOUND otherwise) for personal data and
 * secrets in its typed text, window titles, accessibility data, task text and labels, and an
 * import's kept source files (docs/privacy.md §5). */
export function scanRecording(
  lib: Library,
  idOrPrefix: string,
  options: ScanOptions = {},
): ScanResult {
  const rec = getRecording(lib.db, idOrPrefix);
  const steps = effectiveSteps(lib, rec.seq);
  const found = new FindingCollector(
    steps,
    options.findPii ?? findPii,
    options.maskExcerpt ?? ((text, match) => maskExcerpt(text, match)),
  );

  const own = readRecordingTexts(lib.db, rec.seq);
  for (const text of [own.task, own.description]) {
    found.add({ source: 'task', text, tMs: null, stepIndex: null });
  }
  for (const text of jsonStrings(readLabelData(lib.db, rec.seq))) {
    found.add({ source: 'label', text, tMs: null, stepIndex: null });
  }
  for (const step of steps) {
    typedTexts(step, { ownStep: true }).forEach((t) => found.add(t));
    stepLabelTexts(step).forEach((t) => found.add(t));
  }

  // the raw keys, reduced afresh (the same context as `reduce`, without element targets)
  const events = readEvents(lib.db, rec.seq);
  if (events.some((e) => e.kind === 'keydown')) {
    const raw = reduce(events, {
      screen: { width: rec.screen.width, height: rec.screen.height },
      scaleFactor: rec.screen.scale,
      platform: PLATFORMS.includes(rec.platform.os as ReducePlatform)
        ? (rec.platform.os as ReducePlatform)
        : 'linux',
      source: rec.source === 'agentnet-import' ? 'agentnet' : 'recorder',
    });
    for (const step of raw.steps) {
      typedTexts(step, { ownStep: false }).forEach((t) => found.add(t));
    }
  }

  for (const w of listWindows(lib.db, rec.seq)) {
    if (w.title) {
      found.add({ source: 'window-title', text: w.title, tMs: w.tMs });
    }
  }
  for (const row of iterateAxTexts(lib.db, rec.seq)) {
    const strings = new Set(axStrings(JSON.parse(row.treeJson) as unknown));
    if (row.rootName) {
      strings.add(row.rootName);
    }
    for (const text of strings) {
      found.add({ source: 'accessibility', text, tMs: row.tMs });
    }
  }

  // last, an import's source files (they repeat much of the rows above: only what those did not
  // find counts). The imported metadata.json is also in the recording row, which leaves with
  // the upload's dump and the agentnet-raw export, so it is read even when the files stay home.
  const metadata = rec.sourceMetadata?.metadata;
  if (metadata && typeof metadata === 'object') {
    for (const text of rawTextPieces(JSON.stringify(metadata))) {
      found.add({
        source: 'raw-file',
        file: METADATA_FILE,
        text,
        tMs: null,
        stepIndex: null,
        onlyNew: true,
      });
    }
  }
  if (readPrivacySettings(lib).uploadRawFiles) {
    for (const piece of rawFileScanTexts(rawFilesOf(lib, rec))) {
      found.add({ ...piece, onlyNew: true });
    }
  }
  return { findings: found.findings() };
}
