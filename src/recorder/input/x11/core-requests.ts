// Core X11 requests about windows and their replies, as bytes (X Window System Protocol, X11R7.7,
// §9 "Requests": GetGeometry, QueryTree, InternAtom, GetProperty, QueryPointer,
// TranslateCoordinates): pure encoders of each request's body (the part after the 4-byte header
// that X11Connection.request writes) and decoders of each reply, little-endian like the
// connection. The window lookups of exclusion rules ask these over one connection instead of
// starting xdotool, xwininfo and xprop at every click (src/recorder/privacy/x11-pointer-query.ts).
import type { X11Connection } from './x11-connection';

/** Major opcodes of the core requests used here. */
export const X11_OPCODE = {
  getGeometry: 14,
  queryTree: 15,
  internAtom: 16,
  getProperty: 20,
  queryPointer: 38,
  translateCoordinates: 40,
} as const;

/** Predefined atoms (protocol appendix B) used here. */
export const X11_ATOM = {
  /** AnyPropertyType in GetProperty; None elsewhere. */
  any: 0,
  cardinal: 6,
  integer: 19,
  string: 31,
  wmName: 39,
  wmClass: 67,
} as const;

/** One request to send: its major opcode, the header's second byte, the body. */
export type CoreRequest = { major: number; data: number; body: Buffer };

/** A request whose body is one window (QueryPointer, QueryTree, GetGeometry). */
export function windowRequest(major: number, window: number): CoreRequest {
  const body = Buffer.alloc(4);
  body.writeUInt32LE(window >>> 0, 0);
  return { major, data: 0, body };
}

/** InternAtom: the atom of `name`, created unless `onlyIfExists` (then None when absent). */
export function internAtomRequest(name: string, onlyIfExists = false): CoreRequest {
  const bytes = Buffer.from(name, 'latin1');
  const body = Buffer.alloc(4 + bytes.length);
  body.writeUInt16LE(bytes.length, 0);
  bytes.copy(body, 4);
  return { major: X11_OPCODE.internAtom, data: onlyIfExists ? 1 : 0, body };
}

/** What GetProperty asks for. */
export type GetPropertyOptions = {
  window: number;
  property: number;
  /** Requested type; {@link X11_ATOM.any} for any. A property of another type answers with its
   * type and no value. */
  type: number;
  /** Offset into the value in 4-byte units; default 0. */
  longOffset?: number;
  /** How much of the value to return, in 4-byte units. */
  longLength: number;
};

/** GetProperty (never deleting the property). */
export function getPropertyRequest(options: GetPropertyOptions): CoreRequest {
  const body = Buffer.alloc(20);
  body.writeUInt32LE(options.window >>> 0, 0);
  body.writeUInt32LE(options.property >>> 0, 4);
  body.writeUInt32LE(options.type >>> 0, 8);
  body.writeUInt32LE((options.longOffset ?? 0) >>> 0, 12);
  body.writeUInt32LE(options.longLength >>> 0, 16);
  return { major: X11_OPCODE.getProperty, data: 0, body };
}

/** TranslateCoordinates: where (x, y) of `source` lies in `destination`. */
export function translateCoordinatesRequest(
  source: number,
  destination: number,
  x: number,
  y: number,
): CoreRequest {
  const body = Buffer.alloc(12);
  body.writeUInt32LE(source >>> 0, 0);
  body.writeUInt32LE(destination >>> 0, 4);
  body.writeInt16LE(x, 8);
  body.writeInt16LE(y, 10);
  return { major: X11_OPCODE.translateCoordinates, data: 0, body };
}

/** QueryPointer's reply. */
export type QueryPointerReply = {
  /** False when the pointer is on another screen than the window's (child is then None). */
  isSameScreen: boolean;
  root: number;
  /** The child of the window that holds the pointer, 0 (None) when none does. */
  child: number;
  rootX: number;
  rootY: number;
};

/** Decodes a QueryPointer reply. */
export function parseQueryPointerReply(reply: Buffer): QueryPointerReply {
  return {
    isSameScreen: reply[1] === 1,
    root: reply.readUInt32LE(8),
    child: reply.readUInt32LE(12),
    rootX: reply.readInt16LE(16),
    rootY: reply.readInt16LE(18),
  };
}

/** QueryTree's reply. */
export type QueryTreeReply = {
  root: number;
  /** 0 (None) for a root window. */
  parent: number;
  /** In stacking order, bottom-most first. */
  children: number[];
};

/** Decodes a QueryTree reply. */
export function parseQueryTreeReply(reply: Buffer): QueryTreeReply {
  const count = reply.readUInt16LE(16);
  const children: number[] = [];
  for (let i = 0; i < count; i += 1) {
    children.push(reply.readUInt32LE(32 + 4 * i));
  }
  return { root: reply.readUInt32LE(8), parent: reply.readUInt32LE(12), children };
}

/** GetProperty's reply. */
export type GetPropertyReply = {
  /** 0, 8, 16 or 32; 0 when the property does not exist. */
  format: number;
  /** The property's actual type; 0 (None) when it does not exist. */
  type: number;
  bytesAfter: number;
  /** Number of items of `format` bits in `value`. */
  itemCount: number;
  /** The value's bytes (itemCount × format / 8). */
  value: Buffer;
};

/** Decodes a GetProperty reply. */
export function parseGetPropertyReply(reply: Buffer): GetPropertyReply {
  const format = reply[1] ?? 0;
  const itemCount = reply.readUInt32LE(16);
  const byteCount = (itemCount * format) / 8;
  return {
    format,
    type: reply.readUInt32LE(8),
    bytesAfter: reply.readUInt32LE(12),
    itemCount,
    value: Buffer.from(reply.subarray(32, 32 + byteCount)),
  };
}

/** GetGeometry's reply. */
export type GetGeometryReply = {
  root: number;
  /** Outer corner relative to the parent's origin, px. */
  x: number;
  y: number;
  /** Inside size (without the border), px. */
  width: number;
  height: number;
  borderWidth: number;
};

/** Decodes a GetGeometry reply. */
export function parseGetGeometryReply(reply: Buffer): GetGeometryReply {
  return {
    root: reply.readUInt32LE(8),
    x: reply.readInt16LE(12),
    y: reply.readInt16LE(14),
    width: reply.readUInt16LE(16),
    height: reply.readUInt16LE(18),
    borderWidth: reply.readUInt16LE(20),
  };
}

/** TranslateCoordinates' reply. */
export type TranslateCoordinatesReply = {
  isSameScreen: boolean;
  child: number;
  x: number;
  y: number;
};

/** Decodes a TranslateCoordinates reply. */
export function parseTranslateCoordinatesReply(reply: Buffer): TranslateCoordinatesReply {
  return {
    isSameScreen: reply[1] === 1,
    child: reply.readUInt32LE(8),
    x: reply.readInt16LE(12),
    y: reply.readInt16LE(14),
  };
}

/** Decodes an InternAtom reply: the atom, 0 (None) when absent and only asked if it exists. */
export function parseInternAtomReply(reply: Buffer): number {
  return reply.readUInt32LE(8);
}

/** Sends a request that has a reply and decodes it. */
export async function ask<T>(
  connection: X11Connection,
  request: CoreRequest,
  parse: (reply: Buffer) => T,
): Promise<T> {
  return parse(await connection.request(request.major, request.data, request.body, true));
}
