// The tray's icons per recorder phase: 16×16 PNG dots (grey ready, red recording, amber paused),
// inline so the tray never depends on a file the packager might leave out.
import type { RecorderPhase } from './recording-ux';

const IDLE =
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAARElEQVR42mNgoAXQ0ND4jw2TpHnatGkomChDsGnEZhDZmnEagsvZ' +
  '+AxAMYQUzVhdMUwMoCgQKY5GqiQkqiRlqmQmUgEAIzV09HGiE3QAAAAASUVORK5CYII=';
const RECORDING =
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAARElEQVR42mNgoAXQ0ND4jw2TpPmOnBwKJsoQbBqxGUS2ZpyG4HI2' +
  'PgNQDCFFM1ZXDBMDKApEiqORKgmJKkmZKpmJVAAANUwqlCxedtcAAAAASUVORK5CYII=';
const PAUSED =
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAARElEQVR42mNgoAXQ0ND4jw2TpPnZKgYUTJQh2DRiM4hszTgNweVs' +
  'fAagGEKKZqyuGCYGUBSIFEcjVRISVZIyVTITqQAAC1FfFE8AqY0AAAAASUVORK5CYII=';

/** The tray icon of `phase` as a PNG data URL. */
export function trayIconDataUrl(phase: RecorderPhase): string {
  const png = phase === 'recording' ? RECORDING : phase === 'paused' ? PAUSED : IDLE;
  return `data:image/png;base64,${png}`;
}
