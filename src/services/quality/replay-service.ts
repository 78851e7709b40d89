// Replay of a recording on a desktop (issue 15 item 1, docs/replay.md §5): gathers the edited
// steps, their keyframes and recorded elements from the library, starts the nut-js driver child
// on the display it is given, runs the replay runner and stores the report and the screenshots
// of divergent steps under `<recording>/replay/<run id>/`.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ReplayReport, ReplayStepResult, Step } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { getRecording, readEvents } from '../../store';
import { decodePng } from '../../pipeline/media/png';
import { planReplay } from '../../pipeline/replay/plan';
import { scalePoint, type Point } from '../../pipeline/replay/scale';
import { grayThumbnail, type Thumbnail } from '../../pipeline/replay/screen-diff';
import { elementTarget } from '../../pipeline/agentnet/accessibility';
import type { RoleSystem } from '../../pipeline/agentnet/role-map';
import { createPlatform, type RecorderPlatform } from '../../recorder/platform';
import { InputHook } from '../../recorder/input/hook-process';
import { DEFAULT_HOTKEYS } from '../../recorder/input/hotkeys';
import type { AccessibilityAdapter } from '../../axtree/adapter';
import type { ChildLauncher } from '../../infra/child-launcher';
import { isProcessAlive } from '../../infra/process-alive';
import { startDriverProcess, type ReplayDriver } from '../../replay/driver-process';
import {
  compareWithOwnDisplay,
  displayAccessibilityBus,
  displayNameKey,
  displayRefusal,
  type DisplayVerdict,
  type RefusalSurface,
} from '../../replay/display-identity';
import { acquireDisplayLock } from '../../replay/display-lock';
import {
  runReplay,
  type ReplayElement,
  type ReplayExpectation,
  type RunnerTiming,
} from '../../replay/runner';
import type { Library } from '../library/library';
import { pixelRedactions } from '../privacy/redact-media';
import {
  keyframeStaleness,
  refreshStaleKeyframes,
  TERMINATE_KEYFRAME_ID,
  type ComputeKeyframesOptions,
} from '../keyframes/keyframes';

/** Folder (inside a recording's folder) of replay runs. */
export const REPLAY_DIR = 'replay';
/** The report file of a run. */
export const REPLAY_REPORT_FILE = 'report.json';

/** Options of {@link replayRecording}. */
export type ReplayOptions = {
  /** X display to drive (`:99`); default `env.DISPLAY`. */
  display?: string;
  /** Allow driving the display this process runs on (`env.DISPLAY`). */
  live?: boolean;
  /** Who shows a refusal of the display (its fix): the CLI (default) or the review UI. */
  surface?: RefusalSurface;
  /** Speed factor (recorded pauses between steps divided by it); default 1. */
  speed?: number;
  /** Environment (DISPLAY, DBUS_SESSION_BUS_ADDRESS); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Read the element under each action point over accessibility; default true. */
  elements?: boolean;
  /** Stops the run (reason 'hotkey' | 'cancelled' as the abort reason). */
  signal?: AbortSignal;
  /** Called after each result (progress). */
  onResult?: (result: ReplayStepResult, total: number) => void;
  /** Keyframe decoding (ffmpeg paths). */
  keyframes?: ComputeKeyframesOptions;
  /** Pacing overrides (tests, benchmark). */
  timing?: Partial<RunnerTiming>;
  /** Driver factory (unit tests); default the nut-js child on `display`. */
  startDriver?: (display: string, env: NodeJS.ProcessEnv) => Promise<ReplayDriver>;
  /** The OS the replay runs on (which displays it refuses, the hotkey hook's key names, and the
   * accessibility adapter without `recorderPlatform`); default `process.platform`. */
  platform?: NodeJS.Platform;
  /** The recording parts of the OS whose accessibility adapter and role system read the elements
   * (the services pass their own, which start its helper through the host's launcher); default
   * `createPlatform(platform)`. */
  recorderPlatform?: () => RecorderPlatform;
  /** Watch the display's keyboard for the stop hotkey (an input-hook child); default true. */
  stopHotkey?: boolean;
  /** How the driver and the hook children start (the desktop app: utility processes from its
   * bundled entries, never its own executable spawned); default {@link detectChildLauncher}. */
  launcher?: ChildLauncher;
};

/** The chord that stops a replay: the recorder's stop hotkey. */
export const REPLAY_STOP_HOTKEY = DEFAULT_HOTKEYS.stop;

/** True when two display names name the same X server by their spelling alone (`:5`, `:05`,
 * `:5.0`, `:5.1`, `localhost:5`, `unix:5` are one); {@link assertReplayDisplay} compares the X
 * servers they reach. */
export function sameDisplay(a: string, b: string): boolean {
  return (displayNameKey(a) ?? a.trim()) === (displayNameKey(b) ?? b.trim());
}

const LIVE_FIX: Record<RefusalSurface, string> = {
  cli:
    'pass --display :N of a virtual display that shows the start state, or --live to drive ' +
    'this one anyway (move the mouse to stop)',
  ui:
    'Set Settings → Replay display to a virtual desktop (an Xvfb display such as :99 showing ' +
    'the start state), not the display this app runs on.',
};

/** The display to drive, or a clear error: none known, or the user's own (by its name) without
 * `live`. The X server it reaches is compared by {@link assertReplayDisplay}. */
export function chooseReplayDisplay(
  options: Pick<ReplayOptions, 'display' | 'live' | 'surface'>,
  env: NodeJS.ProcessEnv,
): string {
  const current = env.DISPLAY;
  const display = options.display ?? current;
  if (display === undefined || display.trim() === '') {
    throw new AppError(
      'REPLAY_NO_DISPLAY',
      'replay needs a display to drive: none was given and DISPLAY is not set',
      undefined,
      'pass --display :N naming a virtual display (e.g. Xvfb :99) that shows the start state',
    );
  }
  if (!options.live && current !== undefined && sameDisplay(display, current)) {
    throw new AppError(
      'REPLAY_LIVE_DISPLAY',
      `refusing to replay on ${display}, the display you are working on: replay takes over its ` +
        'mouse and keyboard',
      { display },
      LIVE_FIX[options.surface ?? 'cli'],
    );
  }
  return display;
}

/**
 * Refuses (REPLAY_LIVE_DISPLAY, its fix for the CLI or the UI) a display that reaches the
 * caller's own X server, any display on macOS/Windows, and, when the caller's display is unknown,
 * one that is not a known virtual X server (src/replay/display-identity.ts). Answers the verdict
 * (its `key` names the X server for the per-display lock).
 */
export async function assertReplayDisplay(
  display: string,
  options: { env: NodeJS.ProcessEnv; platform?: NodeJS.Platform; surface?: RefusalSurface },
): Promise<DisplayVerdict> {
  const verdict = await compareWithOwnDisplay(display, options);
  const refusal = displayRefusal(verdict, options.surface ?? 'cli');
  if (refusal) {
    throw refusal;
  }
  return verdict;
}

function recordedElement(target: Record<string, unknown> | null): ReplayElement | null {
  if (target === null || typeof target.control_type !== 'string') {
    return null;
  }
  return {
    controlType: target.control_type,
    title: typeof target.title === 'string' ? target.title : '',
  };
}

/** The pointer at `tMs` (last event with a position at or before it), recording pixels. */
function pointerAt(
  events: readonly { tMs: number; x: number | null; y: number | null }[],
  tMs: number,
) {
  let found: Point | null = null;
  for (const e of events) {
    if (e.tMs > tMs) {
      break;
    }
    if (e.x !== null && e.y !== null) {
      found = { x: e.x, y: e.y };
    }
  }
  return found;
}

async function keyframeThumbnail(
  lib: Library,
  file: string | null,
): Promise<{ thumbnail: Thumbnail | null; note: string | null }> {
  if (file === null) {
    return { thumbnail: null, note: 'no keyframe (the video could not be read there)' };
  }
  try {
    const png = decodePng(await fs.readFile(lib.resolve(file)));
    return { thumbnail: grayThumbnail(png.rgb, png.width, png.height), note: null };
  } catch (error) {
    return { thumbnail: null, note: `keyframe unreadable: ${(error as Error).message}` };
  }
}

/**
 * The environment the accessibility adapter reads the target display's elements with, or the
 * warning saying why they are not compared. Where each display has its own accessibility bus
 * (Linux) the caller's D-Bus session belongs to the caller's desktop: the target's AT-SPI bus is
 * the `AT_SPI_BUS` property of its root window (passed as AT_SPI_BUS_ADDRESS); without one, only
 * a replay on the caller's own display may use the caller's session.
 */
async function targetAccessibilityEnv(
  display: string,
  env: NodeJS.ProcessEnv,
  childEnv: NodeJS.ProcessEnv,
  verdict: DisplayVerdict | null,
  hasBusPerDisplay: boolean,
): Promise<NodeJS.ProcessEnv | string> {
  if (!hasBusPerDisplay) {
    return childEnv;
  }
  const bus = await displayAccessibilityBus(display, env);
  if (bus !== null) {
    return { ...childEnv, AT_SPI_BUS_ADDRESS: bus };
  }
  const isOwn =
    verdict?.verdict === 'own' || (env.DISPLAY !== undefined && sameDisplay(display, env.DISPLAY));
  if (isOwn) {
    return childEnv;
  }
  return (
    `elements not compared: ${display} has no accessibility bus of its own (no AT_SPI_BUS ` +
    "property on its root window: start at-spi-bus-launcher in that desktop's session), and " +
    "this process's D-Bus session belongs to another desktop"
  );
}

/** Removes the work folders of runs whose process is gone (killed); a running one is kept. */
async function removeStaleRuns(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^\..+\.(\d+)\.tmp$/.exec(name)?.[1];
    if (pid !== undefined && !isProcessAlive(Number(pid))) {
      await fs.rm(path.join(dir, name), { recursive: true, force: true });
    }
  }
}

/**
 * Replays one recording (id or unique prefix) on a display and returns the report, also stored
 * as `<recording>/replay/<run id>/report.json` with the screenshots of divergent results.
 */
export async function replayRecording(
  lib: Library,
  idOrPrefix: string,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const env = options.env ?? process.env;
  const display = chooseReplayDisplay(options, env);
  const speed = options.speed ?? 1;
  if (!(Number.isFinite(speed) && speed > 0 && speed <= 100)) {
    throw new AppError(
      'USAGE',
      `replay speed must be a number in (0, 100], got ${String(options.speed)}`,
      undefined,
      'pass e.g. --speed 2 to halve the pauses between steps',
    );
  }
  const rec = getRecording(lib.db, idOrPrefix);
  // the X server the display reaches, compared with the caller's own (not only its name)
  const verdict = options.live
    ? null
    : await assertReplayDisplay(display, {
        env,
        platform: options.platform ?? process.platform,
        surface: options.surface ?? 'cli',
      });
  // one replay per display: a second would move the pointer under the first (which would stop,
  // blaming the user's own input)
  const lock = await acquireDisplayLock(verdict?.key ?? displayNameKey(display) ?? display, {
    display,
    recording: rec.id,
  });
  try {
    return await replayLocked(lib, rec, display, verdict, speed, options);
  } finally {
    await lock.release();
  }
}

// The run itself, holding the display's lock.
async function replayLocked(
  lib: Library,
  rec: ReturnType<typeof getRecording>,
  display: string,
  verdict: DisplayVerdict | null,
  speed: number,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const env = options.env ?? process.env;
  // every step compares with its keyframe: compute those an edit made stale first
  await refreshStaleKeyframes(lib, rec.id, options.keyframes);
  const { steps, rows } = keyframeStaleness(lib, rec.seq);
  if (steps.length === 0) {
    throw new AppError(
      'REPLAY_NOTHING',
      `recording ${rec.id} has no steps to replay`,
      undefined,
      'reduce the recording first (cua-annotator reduce <id>)',
    );
  }
  const events = readEvents(lib.db, rec.seq);
  const redactions = pixelRedactions(lib, rec.seq);
  // the keyframes' pixels are the video's, which may be scaled from the recorded screen's
  // (e.g. 1366×768 recorded into a 1276×718 video): masks are given in the keyframe's pixels
  const video = rec.videos[0];
  const frame = {
    width: video?.width ?? rec.screen.width,
    height: video?.height ?? rec.screen.height,
  };
  const toFrame = (p: Point): Point => ({
    x: (p.x * frame.width) / rec.screen.width,
    y: (p.y * frame.height) / rec.screen.height,
  });
  /** The redaction boxes (video pixels) over the frame shown at `tMs`, or all without a time. */
  const rectsAt = (tMs: number | null) =>
    redactions.flatMap((r) =>
      r.box !== null && (tMs === null || (r.startMs <= tMs && tMs <= r.endMs)) ? [r.box] : [],
    );
  const expectation = async (
    file: string | null,
    tMs: number | null,
    step: Step | null,
    next: Step | null,
  ): Promise<ReplayExpectation & { note: string | null }> => {
    const { thumbnail, note } = await keyframeThumbnail(lib, file);
    const pointers: Point[] = [];
    const at = tMs === null ? null : pointerAt(events, tMs);
    if (at) {
      pointers.push(toFrame(at));
    }
    if (step?.coordinate) {
      pointers.push(toFrame(step.coordinate));
    }
    return {
      keyframe: thumbnail,
      keyframeFile: file === null ? null : path.relative(rec.dir, file).split(path.sep).join('/'),
      pointers,
      rects: rectsAt(tMs),
      element: step ? recordedElement(step.target) : null,
      gapAfterMs: step && next ? Math.max(0, next.startMs - step.endMs) : null,
      note,
    };
  };
  const expectations: (ReplayExpectation & { note: string | null })[] = [];
  for (const [i, step] of steps.entries()) {
    const row = rows.get(step.id);
    expectations.push(
      await expectation(row?.path ?? null, row?.timeMs ?? null, step, steps[i + 1] ?? null),
    );
  }
  const terminate = rows.get(TERMINATE_KEYFRAME_ID);
  expectations.push(
    await expectation(terminate?.path ?? null, terminate?.timeMs ?? null, null, null),
  );

  const runId = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
  const runDirRel = `${REPLAY_DIR}/${runId}`;
  const runDir = path.join(lib.resolve(rec.dir), REPLAY_DIR, runId);
  // the run is written in a hidden folder and renamed when its report is complete: a run that
  // fails or is killed leaves no half-written folder (a killed one leaves a `.…tmp` folder that
  // lastReplayReport ignores and the next run removes)
  const workDir = path.join(lib.resolve(rec.dir), REPLAY_DIR, `.${runId}.${process.pid}.tmp`);
  await removeStaleRuns(path.dirname(runDir));
  let isDone = false;

  const startDriver =
    options.startDriver ??
    (async (d: string, e: NodeJS.ProcessEnv) =>
      (
        await startDriverProcess({
          display: d,
          env: e,
          ...(options.launcher ? { launcher: options.launcher } : {}),
        })
      ).driver);
  const childEnv = { ...env, DISPLAY: display };
  const started = performance.now();
  const startedAt = new Date().toISOString();
  await fs.mkdir(workDir, { recursive: true });
  let driver: ReplayDriver;
  try {
    driver = await startDriver(display, childEnv);
  } catch (error) {
    await fs.rm(workDir, { recursive: true, force: true });
    throw error;
  }
  let adapter: AccessibilityAdapter | null = null;
  let hook: InputHook | null = null;
  const warnings: string[] = [];
  // the run stops on the caller's signal or on the stop hotkey pressed on the replay display
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) {
    onAbort();
  }
  try {
    if (verdict?.verdict === 'unreachable') {
      // no X server answered when it was compared, one does now: compare again before driving
      await assertReplayDisplay(display, {
        env,
        platform: options.platform ?? process.platform,
        surface: options.surface ?? 'cli',
      });
    }
    if (options.stopHotkey !== false) {
      const h = new InputHook({
        env: childEnv,
        platform: options.platform,
        hotkeys: { start: null, pause: null, stop: REPLAY_STOP_HOTKEY },
        ...(options.launcher ? { launcher: options.launcher } : {}),
        onEvents: () => undefined,
        onHotkey: (action) => {
          if (action === 'stop') {
            controller.abort('hotkey');
          }
        },
      });
      try {
        await h.start();
        hook = h;
      } catch (error) {
        warnings.push(
          `the stop hotkey (${REPLAY_STOP_HOTKEY}) is not watched: ${(error as Error).message}`,
        );
      }
    }
    const hello = await driver.hello();
    const recorded = {
      width: rec.screen.width,
      height: rec.screen.height,
      origin: rec.screen.origin,
    };
    const live = { width: hello.width, height: hello.height };
    const plan = planReplay(steps, recorded, live);
    const wantsElements =
      options.elements !== false && steps.some((s) => recordedElement(s.target) !== null);
    // the recording parts of the OS: its accessibility adapter (AT-SPI on Linux, the AX / UIA
    // helper child elsewhere) and role system; none where recording is not supported
    let parts: RecorderPlatform | null = null;
    if (wantsElements) {
      try {
        parts =
          options.recorderPlatform?.() ?? createPlatform(options.platform ?? process.platform);
      } catch (error) {
        warnings.push(`elements not compared: ${(error as Error).message}`);
      }
    }
    // the elements are read from the target display's desktop session, not the caller's
    const a11yEnv = parts
      ? await targetAccessibilityEnv(
          display,
          env,
          childEnv,
          verdict,
          parts.hasAccessibilityBusPerDisplay === true,
        )
      : null;
    if (typeof a11yEnv === 'string') {
      warnings.push(a11yEnv);
    } else if (parts && a11yEnv !== null) {
      try {
        const a = parts.accessibility({
          now: () => performance.now(),
          env: a11yEnv,
        });
        await a.start();
        adapter = a;
      } catch (error) {
        // no accessibility on that display: elements are not compared
        warnings.push(`elements not compared: ${(error as Error).message}`);
        adapter = null;
      }
    }
    const system: RoleSystem = parts?.roleSystem ?? 'atspi';
    const elementAt = adapter
      ? async (p: Point): Promise<ReplayElement | null> => {
          const record = await adapter!.elementAt(p.x, p.y).catch(() => null);
          if (!record) {
            return null;
          }
          const target = elementTarget({
            tMs: record.tMs,
            x: record.x,
            y: record.y,
            tree: { app: record.app, isSecure: record.isSecure, path: record.path },
            system,
          });
          return target ? { controlType: target.control_type, title: target.title } : null;
        }
      : undefined;
    const { results, stopped } = await runReplay({
      driver,
      plan,
      expectations,
      // the live pointer in the keyframe's pixels (masked on both frames)
      toRecorded: (p) => scalePoint(p, live, frame),
      elementAt,
      saveScreenshot: async ({ index, kind }) => {
        const name = kind === 'end' ? 'end.png' : `step-${String(index).padStart(3, '0')}.png`;
        await driver.saveLastGrab(path.join(workDir, name));
        return `${runDirRel}/${name}`;
      },
      signal: controller.signal,
      onResult: options.onResult,
      timing: { ...options.timing, speed },
    });
    for (const r of results) {
      const note = expectations[r.index]?.note ?? null;
      if (r.note === null && note !== null) {
        r.note = note;
      }
    }
    // every step and the end state count; those not reached count as not matching; masked
    // steps (password fields: not replayable) are left out
    const maskedCount = plan.filter((p) => p.masked).length;
    const total = steps.length + 1 - maskedCount;
    const okCount = results.filter((r) => r.ok).length;
    const first = results.find((r) => !r.ok && r.masked !== true);
    const report: ReplayReport = {
      id: rec.id,
      runId,
      startedAt,
      display,
      speed,
      screen: live,
      recordedScreen: { width: rec.screen.width, height: rec.screen.height },
      steps: results,
      score: okCount / total,
      firstDivergent: first ? first.index : stopped ? stopped.stepIndex : null,
      stepCount: steps.length,
      stopped,
      durationMs: Math.round(performance.now() - started),
      warnings,
    };
    // the work folder's rename below is what makes the run appear whole
    await fs.writeFile(
      path.join(workDir, REPLAY_REPORT_FILE),
      `${JSON.stringify(report, null, 2)}\n`,
    );
    await fs.rename(workDir, runDir);
    isDone = true;
    return report;
  } finally {
    if (!isDone) {
      await fs.rm(workDir, { recursive: true, force: true });
    }
    options.signal?.removeEventListener('abort', onAbort);
    await hook?.stop().catch(() => undefined);
    await adapter?.stop().catch(() => undefined);
    await driver.close().catch(() => undefined);
  }
}

/** The latest stored replay report of a recording, or null when it was never replayed. */
export async function lastReplayReport(
  lib: Library,
  idOrPrefix: string,
): Promise<ReplayReport | null> {
  const rec = getRecording(lib.db, idOrPrefix);
  const dir = path.join(lib.resolve(rec.dir), REPLAY_DIR);
  let runs: string[];
  try {
    runs = (await fs.readdir(dir)).sort();
  } catch {
    return null;
  }
  for (const run of runs.filter((name) => !name.startsWith('.')).reverse()) {
    try {
      return JSON.parse(
        await fs.readFile(path.join(dir, run, REPLAY_REPORT_FILE), 'utf8'),
      ) as ReplayReport;
    } catch {
      // a run that stopped before its report (killed): look at the one before
    }
  }
  return null;
}
