// A minimal X11 protocol client in plain Node (docs/platform-linux.md §3a): enough of the core
// protocol for the input hook — connection set-up with MIT-MAGIC-COOKIE-1 from XAUTHORITY, one
// request at a time with its reply, errors, events — and a "stream" mode in which every reply to
// one request (RECORD's EnableContext answers a single request with a reply per batch of input)
// goes to a listener. The socket is always read as data comes: an X server whose writes to a
// RECORD client's full socket would block drops events (measured on Xvfb 21.1: reading only every
// 100 ms lost 3 in 4,000 at 2,500 events a second, button presses included), so the socket must
// never fill. Little-endian byte order throughout ('l').
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A parsed DISPLAY value. */
export type X11DisplayAddress = {
  /** Unix socket path, or null for TCP. */
  socketPath: string | null;
  host: string;
  /** Display number (the N of `:N`). */
  number: number;
};

/** What the server said at set-up that the hook needs. */
export type X11SetupInfo = {
  resourceIdBase: number;
  resourceIdMask: number;
  /** Root window of the first screen. */
  root: number;
};

/** An X protocol error reply to a request. */
export class X11ProtocolError extends Error {
  constructor(
    readonly errorCode: number,
    readonly majorOpcode: number,
    readonly minorOpcode: number,
  ) {
    super(`X error ${errorCode} (request ${majorOpcode}.${minorOpcode})`);
    this.name = 'X11ProtocolError';
  }
}

const SETUP_FAILED = 0;
const SETUP_SUCCESS = 1;
const REPLY = 1;
const ERROR = 0;
const READ_BUFFER_BYTES = 256 * 1024;

/** Parses DISPLAY (`:0`, `:99.0`, `unix:1`, `host:0`); throws on anything else. */
export function parseDisplay(display: string): X11DisplayAddress {
  const match = /^([^:]*):(\d+)(?:\.\d+)?$/.exec(display.trim());
  if (!match) {
    throw new Error(`DISPLAY ${JSON.stringify(display)} is not of the form [host]:N[.screen]`);
  }
  const host = match[1]!;
  const number = Number(match[2]);
  const isLocal = host === '' || host === 'unix';
  return {
    socketPath: isLocal ? `/tmp/.X11-unix/X${number}` : null,
    host: isLocal ? os.hostname() : host,
    number,
  };
}

/** One entry of an Xauthority file. */
export type XauthEntry = {
  family: number;
  address: string;
  number: string;
  name: string;
  data: Buffer;
};

/** Entries of an Xauthority file (big-endian lengths; see Xau's format); [] for a bad file. */
export function parseXauthority(bytes: Buffer): XauthEntry[] {
  const entries: XauthEntry[] = [];
  let at = 0;
  const field = (): Buffer | null => {
    if (at + 2 > bytes.length) {
      return null;
    }
    const length = bytes.readUInt16BE(at);
    if (at + 2 + length > bytes.length) {
      return null;
    }
    const value = bytes.subarray(at + 2, at + 2 + length);
    at += 2 + length;
    return value;
  };
  while (at + 2 <= bytes.length) {
    const family = bytes.readUInt16BE(at);
    at += 2;
    const address = field();
    const number = field();
    const name = field();
    const data = field();
    if (!address || !number || !name || !data) {
      break;
    }
    entries.push({
      family,
      address: address.toString('latin1'),
      number: number.toString('latin1'),
      name: name.toString('latin1'),
      data: Buffer.from(data),
    });
  }
  return entries;
}

const FAMILY_LOCAL = 256;
const FAMILY_WILD = 65535;
/** Event type of XGE events (XInput2), whose length field counts the bytes after 32. */
const GENERIC_EVENT = 35;
const COOKIE = 'MIT-MAGIC-COOKIE-1';

/** The MIT-MAGIC-COOKIE-1 for `address` from XAUTHORITY (or ~/.Xauthority), else null. */
export function findCookie(
  address: X11DisplayAddress,
  env: NodeJS.ProcessEnv,
): { name: string; data: Buffer } | null {
  const file = env.XAUTHORITY || path.join(env.HOME ?? os.homedir(), '.Xauthority');
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return null;
  }
  const number = String(address.number);
  const entry = parseXauthority(bytes).find(
    (e) =>
      e.name === COOKIE &&
      (e.number === '' || e.number === number) &&
      (e.family === FAMILY_WILD ||
        (e.family === FAMILY_LOCAL && address.socketPath !== null && e.address === address.host) ||
        (address.socketPath === null && e.address === address.host)),
  );
  return entry ? { name: entry.name, data: entry.data } : null;
}

const pad4 = (n: number): number => (4 - (n % 4)) % 4;

type Pending = {
  sequence: number;
  resolve: (reply: Buffer) => void;
  reject: (error: Error) => void;
};

/** One connection to an X server. */
export class X11Connection {
  /** Set-up facts; valid after {@link X11Connection.open}. */
  info!: X11SetupInfo;
  private socket: net.Socket | null = null;
  private chunks: Buffer[] = [];
  private sequence = 0;
  private pending: Pending[] = [];
  private setupWaiter: { resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  private streamSequence: number | null = null;
  private streamListener: ((reply: Buffer) => void) | null = null;
  private eventListener: ((event: Buffer) => void) | null = null;
  private closeListener: ((error: Error | null) => void) | null = null;
  private receivedListener: (() => void) | null = null;
  private readBuffer: Buffer | null = null;
  private isPaused = false;
  private isClosed = false;

  /** Connects and completes the set-up; rejects with the server's reason when refused. */
  static async open(
    display: string,
    env: NodeJS.ProcessEnv = process.env,
    timeoutMs = 5000,
  ): Promise<X11Connection> {
    const connection = new X11Connection();
    await connection.connect(parseDisplay(display), env, timeoutMs);
    return connection;
  }

  /** Called with each event the server sends (32 bytes). */
  onEvent(listener: (event: Buffer) => void): void {
    this.eventListener = listener;
  }

  /** Called after everything one read of the socket brought was dispatched (the stream's
   * replies of that read are then all out). */
  onReceived(listener: () => void): void {
    this.receivedListener = listener;
  }

  /**
   * Stops reading the socket until {@link X11Connection.resumeReading} (data waits in it). The
   * event loop still wakes once for the next data (libuv takes a stopped socket out of its
   * epoll set only then); after that, only {@link X11Connection.readWaiting} reads it.
   */
  pauseReading(): void {
    this.isPaused = true;
    this.socket?.pause();
  }

  /**
   * While reading is paused: reads what waits in the socket now, without waiting and without
   * putting the socket back into the event loop, and hands it on as data that came by itself
   * (events, replies, then the onReceived listener once). Returns the bytes read, 0 when
   * nothing waited (or reading is not paused). At the end of the stream or on an error, reading
   * resumes so that the socket reports it.
   */
  readWaiting(): number {
    if (!this.isPaused) {
      return 0;
    }
    // Node's own handle of the socket (Unix): libuv does not read it while it is paused
    const fd = (this.socket as unknown as { _handle?: { fd?: unknown } } | null)?._handle?.fd;
    const buffer = this.readBuffer;
    if (this.isClosed || typeof fd !== 'number' || fd < 0 || buffer === null) {
      this.resumeReading();
      return 0;
    }
    let total = 0;
    for (;;) {
      let bytes: number;
      try {
        bytes = fs.readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
          this.resumeReading(); // the socket's own read meets the error and reports it
        }
        break;
      }
      if (bytes === 0) {
        this.resumeReading(); // end of the stream: the socket sees it and closes
        break;
      }
      total += bytes;
      this.receive(Buffer.from(buffer.subarray(0, bytes)));
      if (this.isClosed || bytes < buffer.length) {
        break;
      }
    }
    if (total > 0) {
      this.receivedListener?.();
    }
    return total;
  }

  /** Whether reading is paused ({@link X11Connection.pauseReading}). */
  get isReadingPaused(): boolean {
    return this.isPaused;
  }

  /** True once the connection has ended (closed by us, by the server, or failed). */
  get isEnded(): boolean {
    return this.isClosed;
  }

  /** Lets the process exit while this connection is open (one kept for occasional requests). */
  unref(): void {
    this.socket?.unref();
  }

  /** Reads the socket again as data comes. */
  resumeReading(): void {
    this.isPaused = false;
    this.socket?.resume();
  }

  /** Called once when the connection ends (error null: closed by us or cleanly by the server). */
  onClose(listener: (error: Error | null) => void): void {
    this.closeListener = listener;
  }

  /** A fresh resource id. */
  newId(offset = 1): number {
    return (this.info.resourceIdBase | (offset & this.info.resourceIdMask)) >>> 0;
  }

  /**
   * Sends a request: `major`, the byte after it (`data`, a minor opcode for extensions), and
   * the body after the 4-byte header (padded here). Resolves with the reply when `hasReply`.
   */
  request(major: number, data: number, body: Buffer, hasReply: true): Promise<Buffer>;
  request(major: number, data: number, body: Buffer, hasReply: false): number;
  request(major: number, data: number, body: Buffer, hasReply: boolean): Promise<Buffer> | number {
    const socket = this.socket;
    if (!socket || this.isClosed) {
      const error = new Error('X connection is closed');
      if (hasReply) {
        return Promise.reject(error);
      }
      throw error;
    }
    const padded = Buffer.concat([body, Buffer.alloc(pad4(body.length))]);
    const header = Buffer.alloc(4);
    header.writeUInt8(major, 0);
    header.writeUInt8(data, 1);
    header.writeUInt16LE((padded.length + 4) / 4, 2);
    socket.write(Buffer.concat([header, padded]));
    this.sequence = (this.sequence + 1) & 0xffff;
    const sequence = this.sequence;
    if (!hasReply) {
      return sequence;
    }
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.push({ sequence, resolve, reject });
    });
  }

  /**
   * Sends a request whose replies keep coming (RECORD EnableContext): each reply goes to
   * `listener`; errors to it reject the returned promise, which otherwise never settles.
   */
  stream(major: number, data: number, body: Buffer, listener: (reply: Buffer) => void): number {
    const sequence = this.request(major, data, body, false);
    this.streamSequence = sequence;
    this.streamListener = listener;
    return sequence;
  }

  /** Closes the socket; pending requests fail. */
  close(): void {
    if (this.isClosed) {
      return;
    }
    this.socket?.destroy();
    this.finish(null);
  }

  private async connect(
    address: X11DisplayAddress,
    env: NodeJS.ProcessEnv,
    timeoutMs: number,
  ): Promise<void> {
    const cookie = findCookie(address, env);
    const readBuffer = Buffer.alloc(READ_BUFFER_BYTES);
    this.readBuffer = readBuffer;
    const onread = {
      buffer: readBuffer,
      callback: (bytes: number, buffer: Uint8Array): boolean => {
        this.receive(Buffer.from(buffer.subarray(0, bytes)));
        this.receivedListener?.();
        return true;
      },
    };
    const socket = address.socketPath
      ? net.connect({ path: address.socketPath, onread })
      : net.connect({ host: address.host, port: 6000 + address.number, onread });
    socket.setNoDelay?.(true);
    this.socket = socket;
    const setup = new Promise<Buffer>((resolve, reject) => {
      this.setupWaiter = { resolve, reject };
    });
    const timer = setTimeout(
      () => this.fail(new Error(`the X server did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('error', (error) => {
      // a server that refuses the set-up may close before our request is written whole: say
      // what that usually means instead of a bare EPIPE
      const code = (error as NodeJS.ErrnoException).code;
      this.fail(
        this.setupWaiter && (code === 'EPIPE' || code === 'ECONNRESET')
          ? new Error(
              `the X server refused the connection: it closed it during the set-up (${code}); a missing or wrong MIT-MAGIC-COOKIE-1 (XAUTHORITY) is the usual cause`,
            )
          : error,
      );
    });
    socket.on('close', () => this.finish(null));
    socket.on('connect', () => {
      const name = Buffer.from(cookie?.name ?? '', 'latin1');
      const data = cookie?.data ?? Buffer.alloc(0);
      const head = Buffer.alloc(12);
      head.write('l', 0, 'latin1');
      head.writeUInt16LE(11, 2);
      head.writeUInt16LE(0, 4);
      head.writeUInt16LE(name.length, 6);
      head.writeUInt16LE(data.length, 8);
      socket.write(
        Buffer.concat([
          head,
          name,
          Buffer.alloc(pad4(name.length)),
          data,
          Buffer.alloc(pad4(data.length)),
        ]),
      );
    });
    try {
      this.info = parseSetup(await setup);
    } finally {
      clearTimeout(timer);
    }
  }

  private receive(chunk: Buffer): void {
    this.chunks.push(chunk);
    let data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    let at = 0;
    for (;;) {
      const rest = data.length - at;
      if (this.setupWaiter) {
        if (rest < 8) {
          break;
        }
        const total = 8 + data.readUInt16LE(at + 6) * 4;
        if (rest < total) {
          break;
        }
        const message = data.subarray(at, at + total);
        at += total;
        const waiter = this.setupWaiter;
        this.setupWaiter = null;
        if (message[0] === SETUP_SUCCESS) {
          waiter.resolve(Buffer.from(message));
        } else {
          const reason =
            message[0] === SETUP_FAILED
              ? message.subarray(8, 8 + message[1]!).toString('latin1')
              : 'the server asks for further authentication';
          waiter.reject(new Error(`the X server refused the connection: ${reason.trim()}`));
          this.close();
          return;
        }
        continue;
      }
      if (rest < 32) {
        break;
      }
      // replies and GenericEvents (XInput2) carry more than 32 bytes
      const total =
        data[at] === REPLY || (data[at]! & 0x7f) === GENERIC_EVENT
          ? 32 + data.readUInt32LE(at + 4) * 4
          : 32;
      if (rest < total) {
        break;
      }
      this.dispatch(data.subarray(at, at + total));
      at += total;
    }
    data = data.subarray(at);
    this.chunks = data.length > 0 ? [Buffer.from(data)] : [];
  }

  private dispatch(message: Buffer): void {
    const type = message[0]!;
    if (type === REPLY || type === ERROR) {
      const sequence = message.readUInt16LE(2);
      if (this.streamSequence === sequence && this.streamListener) {
        if (type === REPLY) {
          this.streamListener(message);
          return;
        }
      }
      // replies come in request order: anything older than this sequence got no reply
      while (this.pending.length > 0) {
        const head = this.pending[0]!;
        if (head.sequence !== sequence) {
          if (((sequence - head.sequence) & 0xffff) < 0x8000) {
            this.pending.shift();
            head.reject(new Error('the X server sent no reply to a request'));
            continue;
          }
          return;
        }
        this.pending.shift();
        if (type === REPLY) {
          head.resolve(Buffer.from(message));
        } else {
          head.reject(new X11ProtocolError(message[1]!, message[10]!, message.readUInt16LE(8)));
        }
        return;
      }
      if (type === ERROR && this.streamSequence === sequence) {
        this.fail(new X11ProtocolError(message[1]!, message[10]!, message.readUInt16LE(8)));
      }
      return;
    }
    this.eventListener?.(Buffer.from(message));
  }

  private fail(error: Error): void {
    if (this.isClosed) {
      return;
    }
    this.socket?.destroy();
    this.finish(error);
  }

  private finish(error: Error | null): void {
    if (this.isClosed) {
      return;
    }
    this.isClosed = true;
    const reason = error ?? new Error('the X connection closed');
    this.setupWaiter?.reject(reason);
    this.setupWaiter = null;
    for (const pending of this.pending.splice(0)) {
      pending.reject(reason);
    }
    this.closeListener?.(error);
  }
}

function parseSetup(reply: Buffer): X11SetupInfo {
  const vendorLength = reply.readUInt16LE(24);
  const formats = reply[29]!;
  const screenAt = 40 + vendorLength + pad4(vendorLength) + 8 * formats;
  return {
    resourceIdBase: reply.readUInt32LE(12),
    resourceIdMask: reply.readUInt32LE(16),
    root: reply.readUInt32LE(screenAt),
  };
}
