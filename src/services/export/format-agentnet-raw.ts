// The agentnet-raw format: a recording as an AgentNet Tool recording folder
// (docs/agentnet-raw-format.md, docs/agentnet-raw-export.md): the raw layer, the reduced rows
// of the effective steps, metadata, and the video (cut when the recording is trimmed).
import fs from 'node:fs/promises';
import path from 'node:path';
import { msToSeconds } from '../../shared/clock';
import type { RecordingDetail } from '../../shared/domain';
import { buildAgentNetRawFolder } from '../../pipeline/export/agentnet-raw';
import { teamTaskIdOf } from '../../shared/tasks-file';
import { listAxRecords, listMarks, listWindows, readEvents } from '../../store';
import type { Library } from '../library/library';
import { textRedactorOf } from '../privacy/text-redaction';
import { withoutAppInput } from '../recording/app-input';
import { withoutExcludedMoves } from '../recording/exclusion-marks';
import type { Loaded } from './export-load';
import { cutKeptVideo, keptRangeOf } from './kept-video';
import type { ExportWriter } from './export-writer';
import type { PiiAllowance } from '../privacy/policy';
import { pixelRedactions, redactsVideo, writeRedactedVideo } from '../privacy/redact-media';

/** Options of {@link writeAgentNetRaw}. */
export type AgentNetRawOptions = {
  appVersion: string;
  /** ffmpeg for cutting a trimmed recording's video (resolved when absent). */
  ffmpegPath?: string;
  /** Leave the library's own video out (an upload bundle ships it as video/); a cut video is
   * still written. */
  omitSourceVideo?: boolean;
  /** Blocking PII findings let through with `allowPii`, recorded in metadata.json's
   * `x_recorder.pii` (services/privacy/policy.ts). */
  pii?: PiiAllowance;
};

/** Writes `<episode>/…` of `l`; returns its warnings. */
export async function writeAgentNetRaw(
  lib: Library,
  l: Loaded,
  out: ExportWriter,
  options: AgentNetRawOptions,
): Promise<string[]> {
  const video = l.rec.videos[0]!;
  const kept = keptRangeOf(l);
  const raw = buildAgentNetRawFolder({
    task: { taskName: l.rec.task, description: l.rec.description },
    metadata: agentNetMetadata(l.rec),
    provenance: {
      app: 'cua-annotator',
      appVersion: options.appVersion,
      recordingId: l.rec.id,
      clock: 'recording clock, seconds',
      exportedAt: new Date().toISOString(),
      ...(options.pii ? { pii: { allowed: options.pii } } : {}),
    },
    videoStartS: msToSeconds(video.startMs),
    steps: l.steps,
    ...readRawLayer(lib, l.rec.seq),
    kept,
  });
  for (const [name, content] of raw.files) {
    await out.file(`${l.episodeId}/${name}`, content);
  }
  // AgentNet Tool's hub_task_id.txt: the hub task the recording was made for, when it has one
  // (docs/team-mode.md §16); an imported AgentNet recording's own is kept in raw.files
  const taskId = teamTaskIdOf(l.rec.sourceMetadata);
  if (taskId !== null && !raw.files.has('hub_task_id.txt')) {
    await out.file(`${l.episodeId}/hub_task_id.txt`, String(taskId));
  }
  // a cut video is named video.mp4, as AgentNet Tool names its cut recordings
  // (docs/agentnet-raw-format.md §7)
  const redactions = pixelRedactions(lib, l.rec.seq);
  if (redactsVideo(redactions, video, kept)) {
    // boxes and excluded intervals drawn in a re-encode (same rate and frame count); an upload
    // bundle ships the untrimmed one as video/ (bundle.ts)
    if (kept || !options.omitSourceVideo) {
      await writeRedactedVideo({
        inputPath: l.videoPath,
        outputPath: await out.target(
          `${l.episodeId}/${kept ? 'video.mp4' : path.basename(video.path)}`,
        ),
        video,
        redactions,
        kept,
        ffmpegPath: options.ffmpegPath,
      });
    }
  } else if (kept) {
    await cutKeptVideo(l, kept, await out.target(`${l.episodeId}/video.mp4`), options.ffmpegPath);
  } else if (!options.omitSourceVideo) {
    await fs.copyFile(l.videoPath, await out.target(`${l.episodeId}/${path.basename(video.path)}`));
  }
  return raw.warnings.map((w) => `step ${w.stepId}: ${w.message}`);
}

/** The raw layer an agentnet-raw export writes (read once up front too, to find damaged rows);
 * the app's own input (a click on Stop in the app's window) is left out, as from the steps. */
export function readRawLayer(lib: Library, seq: number) {
  // text redactions (issue 14): key events, accessibility text and window names leave redacted
  const redactor = textRedactorOf(lib, seq);
  const marks = listMarks(lib.db, seq);
  return {
    // the app's own input and pointer moves over excluded windows never leave (docs/privacy.md §2)
    events: redactor.events(
      withoutExcludedMoves(withoutAppInput(readEvents(lib.db, seq), marks), marks),
    ),
    a11y: listAxRecords(lib.db, seq, 'window').map((r) => ({
      tS: msToSeconds(r.tMs),
      tree: redactor.value(JSON.parse(r.treeJson) as unknown),
      truncated: r.note?.startsWith('truncated') ?? false,
    })),
    elements: listAxRecords(lib.db, seq, 'element').map((r) => ({
      tS: msToSeconds(r.tMs),
      tree: redactor.value(JSON.parse(r.treeJson) as unknown),
      x: r.x,
      y: r.y,
    })),
    topWindows: listWindows(lib.db, seq).map((w) => ({
      tS: msToSeconds(w.tMs),
      name: redactor.string(w.app ?? w.title ?? ''),
    })),
  };
}

/** The metadata.json of an exported recording (the imported one kept, ours built per §13.3). */
function agentNetMetadata(rec: RecordingDetail): Record<string, unknown> {
  const original = rec.sourceMetadata?.metadata;
  if (original && typeof original === 'object') {
    return { ...(original as Record<string, unknown>) };
  }
  const video = rec.videos[0];
  return {
    system: rec.platform.system,
    release: rec.platform.release,
    version: rec.platform.version,
    machine: rec.platform.machine,
    processor: '',
    screen_width: rec.screen.width,
    screen_height: rec.screen.height,
    model: rec.platform.model ?? 'Unknown',
    scroll_direction: 1,
    start_time: rec.startedAt ?? '',
    video_start_timestamp: video ? msToSeconds(video.startMs) : 0,
    stop_time: rec.stoppedAt ?? '',
    obs_record_state_timings: {},
  };
}
