// The AT-SPI accessibility bus reached from Node with dbus-next (no libatspi): the only module
// that imports dbus-next (docs/architecture.md §2). It finds the a11y bus through the session bus
// (org.a11y.Bus.GetAddress) or takes it from AT_SPI_BUS_ADDRESS, connects, and offers raw method
// calls with a timeout each, signal subscriptions and the org.a11y.Status.IsEnabled switch.
// docs/platform-linux.md §4.
import type * as DbusNextModule from 'dbus-next';
import type { Message, MessageBus } from 'dbus-next';
import { netSocketAddress } from './dbus-address';
import { AppError } from '../../../shared/errors';

type DbusNext = typeof DbusNextModule;
/**
 * dbus-next, imported by the first connectAtspi() (~0.1 s): the commands that never capture (the
 * CLI's list, export…) do not pay for it. Every use below runs after a connection began.
 */
let dbusNext: Promise<DbusNext> | null = null;
let dbusLoaded: DbusNext | null = null;
async function loadDbus(): Promise<DbusNext> {
  dbusLoaded = await (dbusNext ??= import('dbus-next'));
  return dbusLoaded;
}
function dbus(): DbusNext {
  if (!dbusLoaded) {
    throw new Error('dbus-next is used before connectAtspi() loaded it');
  }
  return dbusLoaded;
}

/** A D-Bus object: (bus name, object path), as AT-SPI passes references (`(so)`). */
export type AtspiRef = { bus: string; path: string };

/** A D-Bus signal delivered to {@link AtspiBus.onSignal} listeners. */
export type AtspiSignal = {
  /** Sender's unique bus name. */
  sender: string;
  /** Object path the signal is about. */
  path: string;
  /** Interface, e.g. `org.a11y.atspi.Event.Object`. */
  interface: string;
  /** Member, e.g. `StateChanged`. */
  member: string;
  /** Signal arguments as dbus-next unmarshals them. */
  body: unknown[];
};

/** Options of {@link connectAtspi}. */
export type AtspiConnectOptions = {
  /** Environment to read `DBUS_SESSION_BUS_ADDRESS` from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Limit for connecting to each bus and for GetAddress, ms; default 2 000. */
  connectTimeoutMs?: number;
  /** Default limit per method call, ms; default 1 000. */
  callTimeoutMs?: number;
  /** Set `org.a11y.Status.IsEnabled = true` so Chromium/Electron expose trees; default true. */
  shouldEnableAccessibility?: boolean;
};

/** Default limit for connecting, ms. */
export const DEFAULT_ATSPI_CONNECT_TIMEOUT_MS = 2000;
/** Default limit per AT-SPI method call, ms. */
export const DEFAULT_ATSPI_CALL_TIMEOUT_MS = 1000;

const A11Y_BUS = { destination: 'org.a11y.Bus', path: '/org/a11y/bus' } as const;

/** A connected accessibility bus. */
export type AtspiBus = {
  /** Our unique name on the a11y bus. */
  readonly uniqueName: string;
  /** The a11y bus address (unix:path=…). */
  readonly address: string;
  /** Calls `iface.member` on `ref`; rejects with ACCESSIBILITY_TIMEOUT or the D-Bus error. */
  call(
    ref: AtspiRef,
    iface: string,
    member: string,
    signature?: string,
    body?: unknown[],
    timeoutMs?: number,
  ): Promise<unknown[]>;
  /** Adds a D-Bus match rule (signals are only delivered for matching rules). */
  addMatch(rule: string): Promise<void>;
  /** Subscribes to every signal received; returns an unsubscribe function. */
  onSignal(listener: (signal: AtspiSignal) => void): () => void;
  /** Called once if the connection breaks (bus gone, socket error). */
  onError(listener: (error: AppError) => void): void;
  /** Closes both connections; restores IsEnabled when we changed it. */
  close(): Promise<void>;
};

/** A D-Bus error reply (e.g. `org.freedesktop.DBus.Error.UnknownMethod`) as a plain error. */
export class AtspiCallError extends Error {
  override readonly name = 'AtspiCallError';
  constructor(
    /** D-Bus error name. */
    readonly dbusName: string,
    message: string,
  ) {
    super(message);
  }
}

function unavailable(message: string, details?: Record<string, unknown>): AppError {
  return new AppError('ACCESSIBILITY_UNAVAILABLE', message, details);
}

// Resolves when the bus has said Hello, rejects on a connection error or after the limit.
async function waitConnected(bus: MessageBus, what: string, timeoutMs: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(unavailable(`could not connect to the ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onConnect = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: unknown): void => {
      cleanup();
      reject(
        unavailable(
          `could not connect to the ${what}: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      bus.removeListener('connect', onConnect);
      bus.removeListener('error', onError);
    };
    bus.on('connect', onConnect);
    bus.on('error', onError);
  });
}

async function callWithTimeout(
  bus: MessageBus,
  message: Message,
  timeoutMs: number,
): Promise<unknown[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(
        new AppError(
          'ACCESSIBILITY_TIMEOUT',
          `AT-SPI call ${message.interface}.${message.member} on ${message.destination}` +
            `${message.path} got no reply within ${timeoutMs} ms`,
          { destination: message.destination, path: message.path, member: message.member },
        ),
      );
    }, timeoutMs);
  });
  try {
    // a late reply is dropped by dbus-next's reply table; dbus-daemon ends it with NoReply
    const reply = await Promise.race([bus.call(message), timeout]);
    return (reply?.body ?? []) as unknown[];
  } catch (error) {
    if (error instanceof dbus().DBusError) {
      throw new AtspiCallError(error.type, error.text ?? error.message);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function disconnectQuietly(bus: MessageBus): void {
  try {
    bus.disconnect();
  } catch {
    // already closed
  }
}

// Connects to the AT-SPI bus; rejects with ACCESSIBILITY_UNAVAILABLE saying what is missing.
export async function connectAtspi(options: AtspiConnectOptions = {}): Promise<AtspiBus> {
  const env = options.env ?? process.env;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_ATSPI_CONNECT_TIMEOUT_MS;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_ATSPI_CALL_TIMEOUT_MS;
  // AT_SPI_BUS_ADDRESS names the a11y bus directly (as libatspi reads it first): a caller that
  // knows the bus of another desktop's session (the replay: the target display's AT_SPI_BUS root
  // property) skips the session bus, which is its own desktop's; IsEnabled is left alone then
  const directAddress = env.AT_SPI_BUS_ADDRESS?.trim() ?? '';
  if (directAddress !== '') {
    const { sessionBus: connectBus } = await loadDbus();
    return await openA11yBus(
      connectBus({ busAddress: netSocketAddress(directAddress) }),
      directAddress,
      null,
      null,
      connectTimeoutMs,
      callTimeoutMs,
    );
  }
  const sessionAddress = env.DBUS_SESSION_BUS_ADDRESS;
  if (sessionAddress === undefined || sessionAddress.trim() === '') {
    throw unavailable(
      'DBUS_SESSION_BUS_ADDRESS is not set: accessibility capture needs a D-Bus session bus ' +
        'with at-spi2-core (run inside a desktop session, or start dbus-daemon --session and ' +
        '/usr/libexec/at-spi-bus-launcher)',
    );
  }

  const { Message, sessionBus } = await loadDbus();
  const session = sessionBus({ busAddress: netSocketAddress(sessionAddress) });
  // an 'error' event without a listener would crash the process
  session.on('error', () => undefined);
  let a11yBus: MessageBus | null = null;
  let previousIsEnabled: boolean | null = null;
  try {
    await waitConnected(session, `D-Bus session bus at ${sessionAddress}`, connectTimeoutMs);
    let address: string;
    try {
      const body = await callWithTimeout(
        session,
        new Message({
          ...A11Y_BUS,
          interface: 'org.a11y.Bus',
          member: 'GetAddress',
        }),
        connectTimeoutMs,
      );
      address = typeof body[0] === 'string' ? body[0] : '';
    } catch (error) {
      throw unavailable(
        `the session bus has no AT-SPI bus (org.a11y.Bus.GetAddress failed: ` +
          `${error instanceof Error ? error.message : String(error)}); install at-spi2-core`,
      );
    }
    if (address === '') {
      throw unavailable('org.a11y.Bus.GetAddress returned an empty address');
    }

    if (options.shouldEnableAccessibility ?? true) {
      previousIsEnabled = await setIsEnabled(session, true, callTimeoutMs);
    }

    a11yBus = sessionBus({ busAddress: netSocketAddress(address) });
    return await openA11yBus(
      a11yBus,
      address,
      session,
      previousIsEnabled,
      connectTimeoutMs,
      callTimeoutMs,
    );
  } catch (error) {
    if (a11yBus) {
      disconnectQuietly(a11yBus);
    }
    if (previousIsEnabled === false) {
      await setIsEnabled(session, false, callTimeoutMs).catch(() => undefined);
    }
    disconnectQuietly(session);
    throw error;
  }
}

// Waits for the a11y bus connection `bus` and wraps it as an AtspiBus; `session` (null when the
// address was given directly) is closed with it, IsEnabled restored to `previousIsEnabled`.
// Disconnects `bus` when it fails.
async function openA11yBus(
  bus: MessageBus,
  address: string,
  session: MessageBus | null,
  previousIsEnabled: boolean | null,
  connectTimeoutMs: number,
  callTimeoutMs: number,
): Promise<AtspiBus> {
  const { Message, MessageType } = dbus();
  try {
    const errorListeners: ((error: AppError) => void)[] = [];
    let brokenError: AppError | null = null;
    bus.on('error', (error: unknown) => {
      if (brokenError) {
        return;
      }
      brokenError = unavailable(
        `the AT-SPI bus connection broke: ${error instanceof Error ? error.message : String(error)}`,
      );
      errorListeners.forEach((listener) => listener(brokenError as AppError));
    });
    await waitConnected(bus, `AT-SPI bus at ${address}`, connectTimeoutMs);

    const signalListeners = new Set<(signal: AtspiSignal) => void>();
    bus.on('message', (msg: Message) => {
      if (msg.type !== MessageType.SIGNAL || signalListeners.size === 0) {
        return;
      }
      const signal: AtspiSignal = {
        sender: msg.sender,
        path: msg.path,
        interface: msg.interface,
        member: msg.member,
        body: (msg.body ?? []) as unknown[],
      };
      signalListeners.forEach((listener) => listener(signal));
    });

    let isClosed = false;
    const atspiBus: AtspiBus = {
      uniqueName: (bus as MessageBus & { name?: string }).name ?? '',
      address,
      async call(ref, iface, member, signature, body, timeoutMs) {
        if (brokenError) {
          throw brokenError;
        }
        if (isClosed) {
          throw unavailable('the AT-SPI connection is closed');
        }
        return await callWithTimeout(
          bus,
          new Message({
            destination: ref.bus,
            path: ref.path,
            interface: iface,
            member,
            signature,
            body: body ?? [],
          }),
          timeoutMs ?? callTimeoutMs,
        );
      },
      async addMatch(rule) {
        await callWithTimeout(
          bus,
          new Message({
            destination: 'org.freedesktop.DBus',
            path: '/org/freedesktop/DBus',
            interface: 'org.freedesktop.DBus',
            member: 'AddMatch',
            signature: 's',
            body: [rule],
          }),
          callTimeoutMs,
        );
      },
      onSignal(listener) {
        signalListeners.add(listener);
        return () => {
          signalListeners.delete(listener);
        };
      },
      onError(listener) {
        errorListeners.push(listener);
      },
      async close() {
        if (isClosed) {
          return;
        }
        isClosed = true;
        signalListeners.clear();
        disconnectQuietly(bus);
        if (session && previousIsEnabled === false) {
          // leave the desktop as we found it: other apps pay for an enabled a11y stack
          await setIsEnabled(session, false, callTimeoutMs).catch(() => undefined);
        }
        if (session) {
          disconnectQuietly(session);
        }
      },
    };
    return atspiBus;
  } catch (error) {
    disconnectQuietly(bus);
    throw error;
  }
}

// Sets org.a11y.Status.IsEnabled; returns the previous value (null when it could not be read).
async function setIsEnabled(
  session: MessageBus,
  value: boolean,
  timeoutMs: number,
): Promise<boolean | null> {
  const { Message, Variant } = dbus();
  let previous: boolean | null;
  try {
    const body = await callWithTimeout(
      session,
      new Message({
        ...A11Y_BUS,
        interface: 'org.freedesktop.DBus.Properties',
        member: 'Get',
        signature: 'ss',
        body: ['org.a11y.Status', 'IsEnabled'],
      }),
      timeoutMs,
    );
    const variant = body[0] as { value?: unknown } | undefined;
    previous = typeof variant?.value === 'boolean' ? variant.value : null;
  } catch {
    previous = null;
  }
  if (previous === value) {
    return previous;
  }
  await callWithTimeout(
    session,
    new Message({
      ...A11Y_BUS,
      interface: 'org.freedesktop.DBus.Properties',
      member: 'Set',
      signature: 'ssv',
      body: ['org.a11y.Status', 'IsEnabled', new Variant('b', value)],
    }),
    timeoutMs,
  );
  return previous;
}
