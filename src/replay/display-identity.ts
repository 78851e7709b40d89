// Which X server a display name reaches, and whether it is the one the caller works on (issue 26
// items 4 and 21; docs/replay.md §5). A name compare is not enough: `:0173` and `:173`,
// `unix:173.0` and `:173` reach one server. So the target's root window gets a property holding a
// random nonce (xprop, x11-utils), which is then read back through the caller's DISPLAY: the
// same nonce there means the same server. Where the caller's display is unknown (DISPLAY unset
// or answering no one), only an X server this tool knows to be virtual (Xvfb, Xephyr: the pid in
// its /tmp/.X<N>-lock file) counts as safe. Replay drives the machine's own desktop on macOS and
// Windows (nut-js has no display to aim at), so there nothing is safe.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import { AppError } from '../shared/errors';
import { ProcessStartError, runCommand } from '../infra/run-command';

/** A display name `[host]:N[.S]` taken apart. */
export type DisplayName = {
  /** Host as written, lowercase, without brackets; '' for the local socket form `:N`. */
  host: string;
  /** Display number (`:0173` is 173, as Xlib reads it). */
  number: number;
  /** Screen number (0 when not given). */
  screen: number;
  /** True for the forms that reach the local unix socket /tmp/.X11-unix/X<N>: `:N`, `unix:N`. */
  isLocalSocket: boolean;
};

/** Host names that reach this machine over TCP (`localhost:N` is TCP port 6000 + N). */
const LOCAL_TCP_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** X servers known to be virtual desktops (the command name of the pid in /tmp/.X<N>-lock). */
export const VIRTUAL_X_SERVERS = ['Xvfb', 'Xephyr'] as const;

/** The root-window property the identity probe writes (its value: a random nonce). */
export const PROBE_PROPERTY = '_CUA_ANNOTATOR_DISPLAY_PROBE';

const PROBE_TIMEOUT_MS = 3000;
const PROBE_ATTEMPTS = 3;

/** Parses `[host]:N[.S]`; null when it is not an X display name. */
export function parseDisplayName(name: string): DisplayName | null {
  const m = /^(.*):(\d{1,9})(?:\.(\d{1,9}))?$/.exec(name.trim());
  if (!m) {
    return null;
  }
  const host = m[1]!.replace(/^\[|\]$/g, '').toLowerCase();
  if (/[\s/]/.test(host)) {
    return null;
  }
  return {
    host,
    number: Number(m[2]),
    screen: m[3] === undefined ? 0 : Number(m[3]),
    isLocalSocket: host === '' || host === 'unix',
  };
}

/**
 * A key naming the X server a display name reaches, from the name alone: `:N` for every local
 * spelling (`:N`, `:0N`, `:N.S`, `unix:N`, `localhost:N`, `127.0.0.1:N`, `[::1]:N`), else
 * `host:N`. Equal keys are treated as one server (never driven as "another" display); different
 * keys may still reach one server (compare with {@link compareWithOwnDisplay}).
 */
export function displayNameKey(name: string): string | null {
  const d = parseDisplayName(name);
  if (!d) {
    return null;
  }
  const local = d.isLocalSocket || LOCAL_TCP_HOSTS.includes(d.host);
  return `${local ? '' : d.host}:${d.number}`;
}

/** What {@link compareWithOwnDisplay} found out about a display. */
export type DisplayVerdict = {
  /**
   * `other`: an X server other than the caller's (and, when the caller's display is unknown, a
   * known virtual one): safe to drive. `own`: the caller's own desktop (the same X server, or
   * any display on macOS/Windows). `unsure`: could not tell (no xprop, not a display name, the
   * caller's display unknown and the target not a known virtual server): refuse it.
   * `unreachable`: no X server answers on it (nothing can be driven there).
   */
  verdict: 'other' | 'own' | 'unsure' | 'unreachable';
  /** The display as given. */
  display: string;
  /** Key of the X server for a per-display lock (`:N` for local servers, else `host:N`). */
  key: string | null;
  /** Command name of the target's X server when it is a known virtual one (`Xvfb`), else null. */
  virtualServer: string | null;
  /** Why, in words (for an error message). */
  reason: string;
};

/** Options of {@link compareWithOwnDisplay}. */
export type CompareDisplayOptions = {
  /** The caller's environment (its DISPLAY, XAUTHORITY); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
};

type Xprop = { kind: 'ok'; stdout: string } | { kind: 'no-display' } | { kind: 'no-xprop' };

async function xprop(
  display: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<Xprop> {
  try {
    const r = await runCommand('xprop', ['-display', display, '-root', ...args], {
      // the caller's XAUTHORITY; PATH and HOME where the caller's environment has none
      env: { ...process.env, ...env },
      timeoutMs: PROBE_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      maxStdoutBytes: 64 * 1024,
    });
    return r.code === 0 ? { kind: 'ok', stdout: r.stdout } : { kind: 'no-display' };
  } catch (error) {
    if (error instanceof ProcessStartError) {
      return { kind: 'no-xprop' };
    }
    throw error;
  }
}

function probeValue(stdout: string): string | null {
  return (
    new RegExp(`^${PROBE_PROPERTY}\\([A-Z0-9_]+\\) = "([0-9a-f]+)"`, 'm').exec(stdout)?.[1] ?? null
  );
}

/** How {@link sameXServer} answered. */
export type SameServer = 'same' | 'different' | 'a-unreachable' | 'b-unreachable' | 'unknown';

/**
 * Whether display names `a` and `b` reach the same X server: a nonce is set on `a`'s root window
 * and read through `b` (then through `a` again, so a concurrent probe that replaced it is seen:
 * `unknown`). `unknown` also when xprop is missing. With `b` null only `a`'s reachability is
 * probed (`b-unreachable` when it answers).
 */
export async function sameXServer(
  a: string,
  b: string | null,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SameServer> {
  for (let attempt = 0; attempt < PROBE_ATTEMPTS; attempt += 1) {
    const nonce = randomBytes(12).toString('hex');
    const set = await xprop(a, ['-f', PROBE_PROPERTY, '8u', '-set', PROBE_PROPERTY, nonce], env);
    if (set.kind === 'no-xprop') {
      return 'unknown';
    }
    if (set.kind === 'no-display') {
      return 'a-unreachable';
    }
    try {
      if (b === null) {
        return 'b-unreachable';
      }
      const seen = await xprop(b, [PROBE_PROPERTY], env);
      if (seen.kind === 'no-display') {
        return 'b-unreachable';
      }
      const still = await xprop(a, [PROBE_PROPERTY], env);
      if (seen.kind !== 'ok' || still.kind !== 'ok') {
        return 'unknown';
      }
      if (probeValue(still.stdout) !== nonce) {
        continue; // another probe wrote meanwhile: ask again
      }
      return probeValue(seen.stdout) === nonce ? 'same' : 'different';
    } finally {
      await xprop(a, ['-remove', PROBE_PROPERTY], env).catch(() => undefined);
    }
  }
  return 'unknown';
}

/**
 * The command name (`Xvfb`) of the local X server `:N` when it is a known virtual one, else null:
 * the pid in /tmp/.X<N>-lock (which X servers write) and its /proc/<pid>/comm.
 */
export async function virtualServerOf(number: number): Promise<string | null> {
  try {
    const pid = Number((await fs.readFile(`/tmp/.X${number}-lock`, 'utf8')).trim());
    if (!Number.isSafeInteger(pid) || pid <= 0) {
      return null;
    }
    const comm = (await fs.readFile(`/proc/${pid}/comm`, 'utf8')).trim();
    return (VIRTUAL_X_SERVERS as readonly string[]).includes(comm) ? comm : null;
  } catch {
    return null;
  }
}

/**
 * Compares the X server `display` reaches with the caller's own (its `DISPLAY`): see
 * {@link DisplayVerdict}. Never throws for a bad display; the verdict says why.
 */
export async function compareWithOwnDisplay(
  display: string,
  options: CompareDisplayOptions = {},
): Promise<DisplayVerdict> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const verdict = (
    v: DisplayVerdict['verdict'],
    reason: string,
    key: string | null = displayNameKey(display),
    virtualServer: string | null = null,
  ): DisplayVerdict => ({ verdict: v, display, key, virtualServer, reason });
  if (platform === 'darwin' || platform === 'win32') {
    return verdict(
      'own',
      `on ${platform === 'darwin' ? 'macOS' : 'Windows'} replay drives this computer's own ` +
        'desktop whatever display is named: there is no virtual display to confine it to',
    );
  }
  const target = parseDisplayName(display);
  if (!target) {
    return verdict('unsure', `'${display}' is not an X display name (like :99)`);
  }
  const ownName = env.DISPLAY?.trim() ?? '';
  if (ownName !== '' && displayNameKey(ownName) === displayNameKey(display)) {
    return verdict('own', `${display} is ${ownName}, the display you are working on`);
  }
  const own = await sameXServer(display, ownName === '' ? null : ownName, env);
  if (own === 'a-unreachable') {
    return verdict('unreachable', `no X server answers on ${display}`);
  }
  if (own === 'unknown') {
    return verdict(
      'unsure',
      `could not compare the X server of ${display} with yours (${ownName || 'no DISPLAY'}): ` +
        'xprop (x11-utils) is missing or another probe kept changing it',
    );
  }
  if (own === 'same') {
    return verdict(
      'own',
      `${display} reaches the same X server as ${ownName}, the display you are working on`,
    );
  }
  // the key of a local server: a TCP spelling that reaches the local socket's server is `:N`
  let key = displayNameKey(display);
  let localNumber: number | null = target.isLocalSocket ? target.number : null;
  if (!target.isLocalSocket && LOCAL_TCP_HOSTS.includes(target.host)) {
    const viaSocket = await sameXServer(display, `:${target.number}`, env);
    localNumber = viaSocket === 'same' ? target.number : null;
    key = viaSocket === 'same' ? `:${target.number}` : `tcp-${target.host}:${target.number}`;
  }
  const virtualServer = localNumber === null ? null : await virtualServerOf(localNumber);
  if (own === 'different') {
    return verdict(
      'other',
      `${display} is another X server than ${ownName}, the display you are working on`,
      key,
      virtualServer,
    );
  }
  // the caller's display is unknown (DISPLAY unset, or no server answers on it): the user may
  // sit at any X server, so only a virtual one is safe
  if (virtualServer !== null) {
    return verdict(
      'other',
      `${display} is a virtual X server (${virtualServer})`,
      key,
      virtualServer,
    );
  }
  return verdict(
    'unsure',
    `the display you are working on is unknown (${ownName === '' ? 'DISPLAY is not set' : `no X server answers on ${ownName}`}) ` +
      `and ${display} is not a virtual X server this tool knows (${VIRTUAL_X_SERVERS.join(', ')}): ` +
      'it may be your own desktop',
    key,
  );
}

/**
 * The address of the AT-SPI bus of the desktop session on `display`: the `AT_SPI_BUS` property
 * that at-spi-bus-launcher sets on that display's root window (libatspi reads it there too, after
 * `AT_SPI_BUS_ADDRESS`); null when the display has none (no accessibility session on it) or does
 * not answer. The caller's own D-Bus session belongs to the caller's desktop, not to this one.
 */
export async function displayAccessibilityBus(
  display: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> {
  const r = await xprop(display, ['AT_SPI_BUS'], env);
  if (r.kind !== 'ok') {
    return null;
  }
  const raw = /^AT_SPI_BUS\([A-Z0-9_]+\) = "(.*)"\s*$/m.exec(r.stdout)?.[1];
  const address = raw?.replace(/\\(["\\])/g, '$1').trim() ?? '';
  return /^[a-z]+:/.test(address) ? address : null;
}

/** Where the refusal is shown: the CLI (`--display`, `--live`) or the UI's settings. */
export type RefusalSurface = 'cli' | 'ui';

/**
 * The coded error refusing a display (REPLAY_LIVE_DISPLAY, with a fix for the CLI or for the
 * UI's Settings → Replay display), or null when it may be driven: `other`, or `unreachable`
 * (nothing to drive: the driver then fails with REPLAY_DRIVER_FAILED).
 */
export function displayRefusal(v: DisplayVerdict, surface: RefusalSurface): AppError | null {
  if (v.verdict === 'other' || v.verdict === 'unreachable') {
    return null;
  }
  const fix =
    surface === 'ui'
      ? 'Set Settings → Replay display to a virtual desktop (an Xvfb display such as :99 ' +
        'showing the start state), not the display this app runs on.'
      : 'pass --display :N of a virtual display (e.g. Xvfb :99) that shows the start state, or ' +
        '--live to drive this one anyway (move the mouse to stop)';
  return new AppError(
    'REPLAY_LIVE_DISPLAY',
    `refusing to replay on ${v.display}: ${v.reason}; replay takes over its mouse and keyboard`,
    { display: v.display, verdict: v.verdict },
    fix,
  );
}

/** Folder of the per-display replay locks (one per user). */
export function replayLockDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : os.userInfo().username;
  return `${os.tmpdir()}/cua-annotator-replay-${uid}`;
}
