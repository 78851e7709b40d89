// The window under the pointer over one X connection (docs/privacy.md §2): the same three steps
// and the same answers as `xdotool getmouselocation`, `xwininfo -tree -id` and `xprop -id …
// _NET_WM_PID` read through the parsers of x11-pointer-window.ts, asked as core requests
// (src/recorder/input/x11/core-requests.ts) instead of three processes per click — except where
// the tools' answer was wrong: over the bare desktop (the root) there is no window under the
// pointer (the tools named the first client of the whole tree), and a title or class with a
// quote or a backslash is read as it is (the tools' output line could not be read: no window).
//
// 1. The window xdotool names: QueryPointer on the root gives the top-level window under the
//    pointer (the root when none); xdotool then looks for a window with WM_STATE among its
//    ancestors, and failing that among its descendants, and names what that search gives: for a
//    frame of openbox the frame itself (its search down stops at the frame's bottom-most child).
// 2. The first window in `xwininfo -tree` order (children topmost first, each followed by its
//    own children) whose line the client pattern of x11-pointer-window.ts reads: one with a
//    WM_CLASS pair and a name xwininfo prints in quotes, or none.
// 3. `_NET_WM_PID` of that window as xprop prints it (a CARDINAL or INTEGER), else null.
import {
  X11_ATOM,
  X11_OPCODE,
  ask,
  getPropertyRequest,
  internAtomRequest,
  parseGetGeometryReply,
  parseGetPropertyReply,
  parseInternAtomReply,
  parseQueryPointerReply,
  parseQueryTreeReply,
  parseTranslateCoordinatesReply,
  translateCoordinatesRequest,
  windowRequest,
  type GetPropertyReply,
} from '../input/x11/core-requests';
import type { X11Connection } from '../input/x11/x11-connection';
import type { PointedWindow } from './x11-pointer-window';

/** The atoms the lookup asks about, interned once per connection. */
export type PointerQueryAtoms = {
  wmState: number;
  netWmName: number;
  utf8String: number;
  netWmPid: number;
};

/** Interns the atoms of {@link queryPointerWindow} (created if absent, as the X tools do). */
export async function internPointerQueryAtoms(
  connection: X11Connection,
): Promise<PointerQueryAtoms> {
  const intern = (name: string) => ask(connection, internAtomRequest(name), parseInternAtomReply);
  const [wmState, netWmName, utf8String, netWmPid] = await Promise.all([
    intern('WM_STATE'),
    intern('_NET_WM_NAME'),
    intern('UTF8_STRING'),
    intern('_NET_WM_PID'),
  ]);
  return { wmState, netWmName, utf8String, netWmPid };
}

/** xwininfo and xprop ask for at most BUFSIZ (8 192) 4-byte units of a name or class. */
const BUFSIZ_LONGS = 8192;

/** What the search for a client window gave (xdotool's xdo_find_window_client). */
type ClientSearch = { kind: 'found'; window: number } | { kind: 'unset' } | { kind: 'error' };

/**
 * The window under the pointer as the process path answers it; null when it answers none (the
 * pointer on another screen, no client in the frame, any X error on the way, which would have
 * ended one of the tools with a non-zero status).
 */
export async function queryPointerWindow(
  connection: X11Connection,
  atoms: PointerQueryAtoms,
): Promise<PointedWindow | null> {
  const hasWmState = async (window: number): Promise<boolean> => {
    const property = await ask(
      connection,
      getPropertyRequest({ window, property: atoms.wmState, type: X11_ATOM.any, longLength: 0 }),
      parseGetPropertyReply,
    );
    // xdotool asks for the whole value and tests its item count; a zero-length ask says the
    // same through bytes-after, without the value
    return property.type !== X11_ATOM.any && property.bytesAfter > 0;
  };
  const tree = (window: number) =>
    ask(connection, windowRequest(X11_OPCODE.queryTree, window), parseQueryTreeReply);

  // xdotool walks up: the window or its nearest ancestor with WM_STATE
  const searchUp = async (start: number): Promise<ClientSearch> => {
    for (let window = start; window !== 0; window = (await tree(window)).parent) {
      if (await hasWmState(window)) {
        return { kind: 'found', window };
      }
    }
    return { kind: 'error' };
  };
  // …then down, depth first, bottom-most child first. A window with children answers even when
  // none of them has WM_STATE: the caller then takes its own window, and at the top nothing is
  // set (xdotool prints WINDOW=0). That is how a frame of openbox names itself.
  const searchDown = async (window: number): Promise<ClientSearch> => {
    if (await hasWmState(window)) {
      return { kind: 'found', window };
    }
    const { children } = await tree(window);
    for (const child of children) {
      const found = await searchDown(child);
      if (found.kind === 'found') {
        return found;
      }
      if (found.kind === 'unset') {
        return { kind: 'found', window };
      }
    }
    return children.length === 0 ? { kind: 'error' } : { kind: 'unset' };
  };

  try {
    const pointer = await ask(
      connection,
      windowRequest(X11_OPCODE.queryPointer, connection.info.root),
      parseQueryPointerReply,
    );
    if (!pointer.isSameScreen) {
      return null; // xdotool fails on a screen it did not ask about
    }
    if (pointer.child === 0 || pointer.child === pointer.root) {
      return null; // the bare desktop: no window is under the pointer
    }
    let search = await searchUp(pointer.child);
    if (search.kind === 'error') {
      search = await searchDown(pointer.child);
    }
    if (search.kind === 'unset') {
      return null; // WINDOW=0: xwininfo would wait for a click to pick a window
    }
    const top = search.kind === 'found' ? search.window : pointer.child;
    // xwininfo fails on a window that is gone
    await ask(connection, windowRequest(X11_OPCODE.getGeometry, top), parseGetGeometryReply);
    const client = await firstTreeClient(connection, atoms, top);
    if (client === null) {
      return null;
    }
    const window = Number.parseInt(client.windowId.slice(2), 16);
    return { ...client, pid: await windowPid(connection, atoms, window) };
  } catch {
    // an X error (a window gone during the walk) or a closed connection: the tools would have
    // exited non-zero, which the process path reads as no window
    return null;
  }
}

type TreeClient = Omit<PointedWindow, 'pid' | 'processName'>;

// xwininfo -tree's order: the children of `window` topmost first, each followed by its own.
async function firstTreeClient(
  connection: X11Connection,
  atoms: PointerQueryAtoms,
  window: number,
): Promise<TreeClient | null> {
  const { children, root } = await ask(
    connection,
    windowRequest(X11_OPCODE.queryTree, window),
    parseQueryTreeReply,
  );
  for (const child of [...children].reverse()) {
    const client = await treeLineClient(connection, atoms, child, root);
    if (client !== null) {
      return client;
    }
    const inner = await firstTreeClient(connection, atoms, child);
    if (inner !== null) {
      return inner;
    }
  }
  return null;
}

// One child's line of xwininfo -tree, as x11-pointer-window.ts's client pattern reads it: null
// when the pattern would not match (no WM_CLASS pair, a name printed without quotes).
async function treeLineClient(
  connection: X11Connection,
  atoms: PointerQueryAtoms,
  window: number,
  root: number,
): Promise<TreeClient | null> {
  const property = (propertyAtom: number, type: number) =>
    ask(
      connection,
      getPropertyRequest({ window, property: propertyAtom, type, longLength: BUFSIZ_LONGS }),
      parseGetPropertyReply,
    );
  // the five requests go out together, as xwininfo sends them
  const [netName, wmName, wmClass, geometry, translated] = await Promise.all([
    property(atoms.netWmName, atoms.utf8String),
    property(X11_ATOM.wmName, X11_ATOM.any),
    property(X11_ATOM.wmClass, X11_ATOM.string),
    ask(connection, windowRequest(X11_OPCODE.getGeometry, window), parseGetGeometryReply),
    ask(
      connection,
      translateCoordinatesRequest(window, root, 0, 0),
      parseTranslateCoordinatesReply,
    ),
  ]);
  const title = printedName(netName.type !== X11_ATOM.any ? netName : wmName, atoms.utf8String);
  const classes = printedClass(wmClass);
  if (title === undefined || classes === null) {
    return null;
  }
  const [instance, cls] = classes;
  return {
    windowId: `0x${window.toString(16)}`,
    title,
    app: cls || null,
    appInstance: instance || null,
    bounds: {
      x: translated.x - geometry.borderWidth,
      y: translated.y - geometry.borderWidth,
      width: geometry.width,
      height: geometry.height,
    },
  };
}

/**
 * A window's name as xwininfo prints it and the client pattern reads it: the text between the
 * quotes; null for `(has no name)`; undefined when xwininfo prints no name (another encoding,
 * invalid UTF-8). A quote or a backslash is kept as it is.
 */
export function printedName(
  property: GetPropertyReply,
  utf8String: number,
): string | null | undefined {
  if (property.type === X11_ATOM.any || property.value.length === 0) {
    return null;
  }
  let text: string;
  if (property.type === X11_ATOM.string) {
    // printf("%.*s"): up to the first NUL; the bytes decoded as UTF-8, as the output was
    text = cString(property.value).toString('utf8');
  } else if (property.type === utf8String) {
    if (!isXwininfoUtf8(property.value)) {
      return undefined; // printed as "(invalid UTF8_STRING)"
    }
    text = property.value.toString('utf8');
  } else {
    return undefined; // "(name in unsupported encoding …)", e.g. COMPOUND_TEXT
  }
  return text;
}

/** WM_CLASS as xwininfo prints it: [instance, class] up to their NULs, null unless a STRING of
 * 8-bit items with a NUL after the instance (otherwise the line reads `()` or `(none)`). */
export function printedClass(property: GetPropertyReply): [string, string] | null {
  if (property.type !== X11_ATOM.string || property.format !== 8) {
    return null;
  }
  const instance = cString(property.value);
  if (instance.length >= property.value.length) {
    return null;
  }
  const cls = cString(property.value.subarray(instance.length + 1));
  return [instance.toString('utf8'), cls.toString('utf8')];
}

/** `_NET_WM_PID` as `xprop -id <w> _NET_WM_PID` prints it and xpropCardinal reads it. */
async function windowPid(
  connection: X11Connection,
  atoms: PointerQueryAtoms,
  window: number,
): Promise<number | null> {
  try {
    const property = await ask(
      connection,
      getPropertyRequest({ window, property: atoms.netWmPid, type: X11_ATOM.any, longLength: 1 }),
      parseGetPropertyReply,
    );
    return propertyNumber(property);
  } catch {
    return null; // xprop fails on a window gone since
  }
}

/** The first number of a CARDINAL (unsigned) or INTEGER (signed) property, else null (xprop
 * prints other types as names, ids or strings, which read as no number). */
export function propertyNumber(property: GetPropertyReply): number | null {
  const isSigned = property.type === X11_ATOM.integer;
  if ((property.type !== X11_ATOM.cardinal && !isSigned) || property.itemCount === 0) {
    return null;
  }
  const value = property.value;
  switch (property.format) {
    case 8:
      return isSigned ? value.readInt8(0) : value.readUInt8(0);
    case 16:
      return isSigned ? value.readInt16LE(0) : value.readUInt16LE(0);
    case 32:
      return isSigned ? value.readInt32LE(0) : value.readUInt32LE(0);
    default:
      return null;
  }
}

function cString(bytes: Buffer): Buffer {
  const end = bytes.indexOf(0);
  return end < 0 ? bytes : bytes.subarray(0, end);
}

/**
 * xwininfo's own UTF-8 check (RFC 3629 lead and continuation bytes, overlong two-byte forms and
 * code points above U+10FFFF refused; a sequence cut short at the end passes, as there).
 */
export function isXwininfoUtf8(bytes: Buffer): boolean {
  let remaining = 0;
  let codePoint = 0;
  for (const byte of bytes) {
    if ((byte & 0x80) === 0) {
      if (remaining > 0) {
        return false;
      }
      codePoint = byte;
    } else if ((byte & 0xc0) === 0x80) {
      if (remaining === 0) {
        return false;
      }
      remaining -= 1;
      codePoint |= (byte & 0x3f) << (remaining * 6);
      if (codePoint === 0) {
        return false;
      }
    } else if ((byte & 0xe0) === 0xc0) {
      if (remaining > 0) {
        return false;
      }
      remaining = 1;
      codePoint = (byte & 0x1f) << 6;
      if (codePoint === 0) {
        return false;
      }
    } else if ((byte & 0xf0) === 0xe0) {
      if (remaining > 0) {
        return false;
      }
      remaining = 2;
      codePoint = (byte & 0x0f) << 12;
    } else if ((byte & 0xf8) === 0xf0) {
      if (remaining > 0) {
        return false;
      }
      remaining = 3;
      codePoint = (byte & 0x07) << 18;
      if (codePoint > 0x10ffff) {
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}
