// Request guards both HTTP hosts use (the local `serve`, src/server, and the team hub,
// src/hub/http): cookie and Bearer parsing, constant-time secret comparison, loopback tests.
// They live in infra because server and hub may both import it and neither may import the other.
import crypto from 'node:crypto';
import net from 'node:net';

// Compares two secrets in constant time (hashing first so lengths do not leak either).
export function secretEquals(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given, 'utf8').digest();
  const b = crypto.createHash('sha256').update(expected, 'utf8').digest();
  return crypto.timingSafeEqual(a, b);
}

// Reads the value of one cookie from a Cookie header (undefined when absent).
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) {
    return undefined;
  }
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      return part.slice(eq + 1).trim();
    }
  }
  return undefined;
}

// Reads the token of an `Authorization: Bearer <token>` header (undefined when absent).
export function readBearer(header: string | undefined): string | undefined {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

// True for host names and addresses that only this machine can reach.
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') {
    return true;
  }
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return net.isIPv4(v4) && v4.startsWith('127.');
}

// True for the peer address of a connection from this machine (IPv4 127/8, ::1, mapped forms).
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && address !== 'localhost' && isLoopbackHost(address);
}

// The Host header values a loopback server answers to (DNS-rebinding guard); `defaultPort` is
// the scheme's (80 for http, 443 for https).
export function allowedHosts(port: number, defaultPort = 80): Set<string> {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  if (port === defaultPort) {
    // browsers omit the default port from Host
    hosts.push('127.0.0.1', 'localhost', '[::1]');
  }
  return new Set(hosts);
}
