// Checks of a `settings:set` patch that the contract's schema cannot make: each value is refused
// when it would break or harm later (a hotkey the recorder cannot use, an upload endpoint that
// reaches a cloud metadata service or sends recordings in clear, the server's own display as the
// replay display, a title rule no linear-time engine runs). Each refusal is a coded error whose
// `details.field` names the form field (the Settings page shows it there) and whose fix says
// what to enter instead.
import { resolveHotkeys, parseHotkey, type HotkeyChord } from '../../recorder/input/hotkeys';
import {
  checkExclusionRule,
  exclusionRules,
  type ExclusionRule,
} from '../../recorder/privacy/exclusion';
import type { SettingsPatch } from '../../shared/contract';
import { displayNameKey } from '../../replay/display-identity';
import { MODIFIER_BITS } from '../../shared/domain/raw-event';
import { AppError, isAppError } from '../../shared/errors';

/** The same error with `details.field` naming the settings field it is about. */
function atField(e: unknown, field: string): unknown {
  return isAppError(e) ? new AppError(e.code, e.message, { ...e.details, field }, e.fix) : e;
}

// Each title and application rule of the patch, checked as the recorder will compile it.
function checkPrivacy(privacy: NonNullable<SettingsPatch['privacy']>): void {
  const lists = [
    ['excludeApps', privacy.excludeApps],
    ['excludeTitles', privacy.excludeTitles],
  ] as const;
  for (const [key, list] of lists) {
    const field = `privacy.${key}`;
    let rules: ExclusionRule[];
    try {
      rules = exclusionRules({ settings: { useDefaultExclusions: false, [key]: list ?? [] } });
    } catch (e) {
      throw atField(e, field);
    }
    rules.forEach((rule, i) => {
      try {
        checkExclusionRule(rule);
      } catch (e) {
        throw atField(e, `${field}[${i}]`);
      }
    });
  }
}

const HOTKEY_FIX =
  'Enter a chord of at least one of ctrl, alt or meta plus one key, e.g. ctrl+alt+shift+r, and ' +
  'give start/stop and pause different chords.';

function hotkeyError(field: 'startStop' | 'pause', text: string, reason: string): AppError {
  return new AppError(
    'HOTKEY_INVALID',
    `Hotkey '${text}' is invalid: ${reason}.`,
    { field: `hotkeys.${field}`, hotkey: text },
    HOTKEY_FIX,
  );
}

// Both chords parse, each needs a modifier besides Shift (a bare key would be taken from every
// application and from the recording), and they differ from each other and from the recorder's
// other chords.
function checkHotkeys(hotkeys: NonNullable<SettingsPatch['hotkeys']>): void {
  const chords = {} as Record<'startStop' | 'pause', HotkeyChord>;
  for (const field of ['startStop', 'pause'] as const) {
    const text = hotkeys[field];
    let chord: HotkeyChord;
    try {
      chord = parseHotkey(text);
    } catch (e) {
      throw isAppError(e, 'HOTKEY_INVALID')
        ? hotkeyError(field, text, e.message.replace(/^Hotkey '.*' is invalid: |\.$/g, ''))
        : e;
    }
    if ((chord.modifiers & ~MODIFIER_BITS.shift) === 0) {
      throw hotkeyError(
        field,
        text,
        'it needs ctrl, alt or meta: a global hotkey without one takes the key from every application',
      );
    }
    chords[field] = chord;
  }
  if (chords.startStop.text === chords.pause.text) {
    throw hotkeyError('pause', hotkeys.pause, 'it is the same chord as the start/stop hotkey');
  }
  // as the recorder binds them (src/services/recording/recorder-service.ts): the start/stop
  // chord stops, the pause chord pauses, the start chord keeps its default
  try {
    resolveHotkeys({ stop: hotkeys.startStop, pause: hotkeys.pause });
  } catch (e) {
    const field = isAppError(e) && e.details?.hotkey === hotkeys.pause ? 'pause' : 'startStop';
    throw isAppError(e, 'HOTKEY_INVALID')
      ? hotkeyError(field, hotkeys[field], e.message.replace(/^Hotkey '.*' is invalid: |\.$/g, ''))
      : e;
  }
}

/** The IPv4 address of a URL host (`169.254.1.1`, or an IPv4-mapped IPv6 one), else null. */
function ipv4Of(host: string): number[] | null {
  const dotted = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (dotted) {
    return dotted.slice(1).map(Number);
  }
  // the URL parser writes ::ffff:169.254.169.254 as [::ffff:a9fe:a9fe]
  const mapped = /^\[(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/i.exec(host);
  if (mapped) {
    const hi = parseInt(mapped[1] ?? '0', 16);
    const lo = parseInt(mapped[2] ?? '0', 16);
    return [hi >> 8, hi & 255, lo >> 8, lo & 255];
  }
  return null;
}

function isLinkLocal(host: string): boolean {
  const v4 = ipv4Of(host);
  if (v4) {
    return v4[0] === 169 && v4[1] === 254;
  }
  // fe80::/10
  return /^\[fe[89ab][0-9a-f]?:/i.test(host);
}

function isLoopback(host: string): boolean {
  const v4 = ipv4Of(host);
  if (v4) {
    return v4[0] === 127;
  }
  return host === 'localhost' || host === '[::1]';
}

function endpointError(endpoint: string, reason: string, fix: string): AppError {
  return new AppError(
    'UPLOAD_CONFIG',
    `Upload endpoint "${endpoint}" ${reason}.`,
    { field: 'uploadEndpoint' },
    fix,
  );
}

const ENDPOINT_FIX =
  'Enter the https:// address of the S3 server (plain http:// only for a server on this machine: ' +
  '127.0.0.1, localhost or [::1]), or leave it empty for AWS.';

/**
 * An upload endpoint the settings may keep: an http(s) URL without credentials, never a
 * link-local address (169.254.0.0/16, fe80::/10: cloud metadata services answer there), and plain
 * http only to this machine (elsewhere the recordings would cross the network in clear).
 */
export function checkUploadEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw endpointError(endpoint, 'is not a URL', ENDPOINT_FIX);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw endpointError(endpoint, 'must start with https://', ENDPOINT_FIX);
  }
  if (url.username !== '' || url.password !== '') {
    throw endpointError(
      endpoint,
      'holds a user name or password, which would be stored in plain text',
      'Remove the credentials from the address and save them as the upload credentials instead.',
    );
  }
  if (isLinkLocal(url.hostname)) {
    throw endpointError(
      endpoint,
      'is a link-local address (169.254.x.x or fe80::), where cloud metadata services answer, not an S3 server',
      ENDPOINT_FIX,
    );
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw endpointError(
      endpoint,
      'is plain http to another machine: recordings would cross the network unencrypted',
      ENDPOINT_FIX,
    );
  }
}

// Replay takes over the mouse and keyboard of its display: never the one this host runs on, in
// any spelling of it (`:0173`, `:173.0`, `unix:173`, `localhost:173` for `:173`; the schema lets
// only display names through). This is the check of the name, at once; replay:start also
// compares the X servers the names reach (src/replay/display-identity.ts).
function checkReplayDisplay(display: string, env: NodeJS.ProcessEnv): void {
  const own = env.DISPLAY?.trim();
  const key = displayNameKey(display);
  if (display === '' || !own || key === null || key !== displayNameKey(own)) {
    return;
  }
  throw new AppError(
    'REPLAY_LIVE_DISPLAY',
    `Replay display "${display}" is the display this server runs on (${own}): a replay would take over its mouse and keyboard.`,
    { field: 'replayDisplay', display },
    'Enter the display of a virtual desktop that shows the start state (e.g. :99 of `Xvfb :99`), or leave it empty to turn replay off.',
  );
}

/** Throws a coded error naming the field of the first value of `patch` that would break or harm
 * later; `env` is the host's environment (its DISPLAY). */
export function checkSettingsPatch(patch: SettingsPatch, env: NodeJS.ProcessEnv): void {
  if (patch.privacy) {
    checkPrivacy(patch.privacy);
  }
  if (patch.hotkeys) {
    checkHotkeys(patch.hotkeys);
  }
  if (patch.uploadEndpoint) {
    checkUploadEndpoint(patch.uploadEndpoint);
  }
  if (patch.replayDisplay !== undefined) {
    checkReplayDisplay(patch.replayDisplay.trim(), env);
  }
}
