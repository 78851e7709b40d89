// The app's settings in the library's `settings` table (one JSON value per key; upload settings
// have their own keys in uploads.ts).
import type { Db } from '../db';

/** Key of the app's settings (fps, quality, display, accessibility, countdown, hotkeys). */
export const APP_SETTINGS_KEY = 'app.settings';

/** The stored app settings (parsed JSON), or undefined when none were saved. */
export function getAppSettings(db: Db): unknown {
  const row = db.prepare(`SELECT value_json FROM settings WHERE key = ?`).get(APP_SETTINGS_KEY) as
    { value_json: string } | undefined;
  return row ? (JSON.parse(row.value_json) as unknown) : undefined;
}

/** Replaces the stored app settings. */
export function setAppSettings(db: Db, value: Record<string, unknown>): void {
  db.prepare(
    `INSERT INTO settings (key, value_json) VALUES (?, ?)
     ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json`,
  ).run(APP_SETTINGS_KEY, JSON.stringify(value));
}
