// How the end-to-end tests start Debian's Chromium (headless, through playwright-core).
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

// Media playback must not depend on the machine's sound devices: with an audio track and no
// usable output, Chromium's audio clock can stall the whole playback (seen on CI), so audio goes
// to Chromium's fake output, which advances with the wall clock.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-audio-output',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-background-media-suspend',
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
