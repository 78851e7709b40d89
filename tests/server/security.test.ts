import { describe, expect, it } from 'vitest';
import {
  bindPolicyError,
  createToken,
  isLoopbackHost,
  readBasicPassword,
  readBearer,
  readCookie,
  secretEquals,
} from '../../src/server/security';
import { parseMediaPath } from '../../src/server/media';
import { resolveStatic } from '../../src/server/static';

describe('server security helpers', () => {
  it('tokens are 32 random bytes in base64url and differ per launch', () => {
    const a = createToken();
    const b = createToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('compares secrets exactly', () => {
    expect(secretEquals('abc', 'abc')).toBe(true);
    expect(secretEquals('abc', 'abd')).toBe(false);
    expect(secretEquals('abc', 'abcd')).toBe(false);
    expect(secretEquals('', 'abc')).toBe(false);
  });

  it('reads bearer tokens, cookies and Basic passwords', () => {
    expect(readBearer('Bearer xyz')).toBe('xyz');
    expect(readBearer('bearer  xyz ')).toBe('xyz');
    expect(readBearer('Basic xyz')).toBeUndefined();
    expect(readCookie('a=1; cua_token=t-1; b=2', 'cua_token')).toBe('t-1');
    expect(readCookie('xcua_token=t', 'cua_token')).toBeUndefined();
    const basic = `Basic ${Buffer.from('anyone:pa:ss word').toString('base64')}`;
    expect(readBasicPassword(basic)).toBe('pa:ss word');
    expect(readBasicPassword('Bearer x')).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.5', false],
    ['example.com', false],
  ])('isLoopbackHost(%s) = %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it('refuses a non-loopback bind without --allow-remote and a password', () => {
    expect(bindPolicyError({ host: '127.0.0.1', allowRemote: false, password: undefined })).toBe(
      null,
    );
    expect(
      bindPolicyError({ host: '0.0.0.0', allowRemote: false, password: 'long-password' }),
    ).toMatch(/--allow-remote/);
    expect(bindPolicyError({ host: '0.0.0.0', allowRemote: true, password: undefined })).toMatch(
      /CUA_SERVE_PASSWORD/,
    );
    expect(bindPolicyError({ host: '0.0.0.0', allowRemote: true, password: 'short' })).toMatch(
      /too short/,
    );
    expect(bindPolicyError({ host: '0.0.0.0', allowRemote: true, password: 'long-password' })).toBe(
      null,
    );
  });

  it.each([
    ['/media/../../etc/passwd', 'bad'],
    ['/media/%2e%2e/%2e%2e/etc/passwd', 'bad'],
    ['/media/abc/keyframe/..%2f..%2fx.png', 'bad'],
    ['/media/abc/keyframe/..%5cx.png', 'bad'],
    ['/media/abc%2f..%2f..%2flibrary.sqlite/video', 'bad'],
    ['/media//etc/passwd', 'bad'],
    ['/media/abc/keyframe/%00.png', 'bad'],
    ['/media/abc/keyframe/%zz.png', 'bad'],
    ['/media/abc/video/a/b', 'missing'],
    ['/media/abc/keyframe/x.jpg', 'missing'],
    ['/media/abc/other', 'missing'],
    ['/media/abc', 'missing'],
  ])('parseMediaPath(%s) = %s', (raw, expected) => {
    expect(parseMediaPath(raw)).toBe(expected);
  });

  it('parses well-formed media paths', () => {
    expect(parseMediaPath('/media/r-1/video')).toEqual({ recordingId: 'r-1', kind: 'video' });
    expect(parseMediaPath('/media/r-1/video/a%20b.mp4')).toEqual({
      recordingId: 'r-1',
      kind: 'video',
      name: 'a b.mp4',
    });
    expect(parseMediaPath('/media/r-1/keyframe/step%2003.png')).toEqual({
      recordingId: 'r-1',
      kind: 'keyframe',
      name: 'step 03.png',
    });
  });

  it.each([
    ['/../../etc/passwd', 'bad'],
    ['/%2e%2e/%2e%2e/etc/passwd', 'bad'],
    ['/..%2f..%2fetc%2fpasswd', 'bad'],
    ['/a%00b', 'bad'],
    ['/.env', 'missing'],
    ['/assets/none.js', 'missing'],
    ['/recordings/abc', 'index'],
    ['/', 'index'],
  ])('resolveStatic(%s) = %s', (raw, kind) => {
    expect(resolveStatic('/nonexistent-renderer', raw).kind).toBe(kind);
  });
});
