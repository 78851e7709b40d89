// A recording with personal data in its task text (an e-mail address) and in a window title (a
// card number and another address), for the tests of `scan` and its redaction and policy flags.
import type { Db } from '../../src/store';
import { insertWindows } from '../../src/store';
import { makeRecording } from './store';

/** Adds the recording to `db`; returns its id. */
export function makePiiRecording(db: Db): string {
  const rec = makeRecording(db, { task: 'Mail the invoice to bob@example.com' });
  insertWindows(db, rec.seq, [
    {
      tMs: 250,
      title: 'Pay 4111 1111 1111 1111 – carol@example.org',
      app: 'browser',
      pid: 1,
      bounds: null,
      windowId: null,
    },
  ]);
  return rec.id;
}
