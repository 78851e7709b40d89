// D-Bus addresses rewritten so dbus-next connects through node:net, never through its optional
// native `usocket` module: usocket calls util.isError, which Node 23 removed, so with it every
// D-Bus connection breaks under Node 24 (docs/platform-linux.md §4). node:net reaches both kinds
// of Unix socket D-Bus uses: a path, and (on Linux) an abstract name written with a leading NUL.

/** `unix:path=P` becomes `unix:socket=P` and `unix:abstract=N` becomes `unix:socket=\0N`;
 * other transports and keys are kept as they are. */
export function netSocketAddress(address: string): string {
  return address
    .split(';')
    .map((transport) => {
      const colon = transport.indexOf(':');
      if (colon < 0 || transport.slice(0, colon).toLowerCase() !== 'unix') {
        return transport;
      }
      const keys = transport
        .slice(colon + 1)
        .split(',')
        .filter((pair) => pair !== '');
      const rewritten = keys.map((pair) => {
        const eq = pair.indexOf('=');
        const key = eq < 0 ? pair : pair.slice(0, eq);
        const value = eq < 0 ? '' : unescapeAddressValue(pair.slice(eq + 1));
        if (key === 'path') {
          return `socket=${value}`;
        }
        if (key === 'abstract') {
          return `socket=\u0000${value}`;
        }
        return pair;
      });
      return `${transport.slice(0, colon)}:${rewritten.join(',')}`;
    })
    .join(';');
}

// D-Bus escapes bytes outside [-0-9A-Za-z_/.\*] as %XX; dbus-next hands values over verbatim.
function unescapeAddressValue(value: string): string {
  return value.replace(/%([0-9a-fA-F]{2})/g, (_match, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
}
