// The afterPack hook's fuses (tools/packaging/after-pack.mjs), without an Electron binary: a file
// carrying Electron's fuse sentinel and wire stands in for the packed executable, and the real
// @electron/fuses flips it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fuses from '@electron/fuses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  afterPack,
  electronBinaryPath,
  FUSE_SETTINGS,
  fuseConfig,
  type PackContext,
} from '../../tools/packaging/after-pack.mjs';

const { FuseV1Options, FuseVersion } = fuses;

/** @electron/fuses' sentinel: the fuse wire follows it (version byte, length byte, one byte each). */
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';

/**
 * A stand-in Electron binary. `wire` is one character per fuse in FuseV1Options order: '1' on,
 * '0' off. Electron 45 ships RunAsNode, NodeOptions, CliInspect and
 * GrantFileProtocolExtraPrivileges on and the rest off: '10110001'.
 */
function fakeElectron(wire = '10110001'): Buffer {
  return Buffer.concat([
    Buffer.from('\x7fELF not really an executable '.repeat(20)),
    Buffer.from(SENTINEL),
    Buffer.from([1, wire.length]),
    Buffer.from(wire),
    Buffer.from(' more bytes after the wire'.repeat(20)),
  ]);
}

/** The fuse wire characters of a stand-in binary after the hook ran. */
async function wireOf(file: string): Promise<string> {
  const bytes = await readFile(file);
  const at = bytes.indexOf(SENTINEL) + SENTINEL.length;
  expect(bytes[at]).toBe(1);
  const length = bytes[at + 1]!;
  return bytes.subarray(at + 2, at + 2 + length).toString('latin1');
}

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'after-pack-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function context(platform: string): PackContext {
  return {
    appOutDir: dir,
    electronPlatformName: platform,
    packager: { appInfo: { productFilename: 'cua-annotator' }, executableName: 'cua-annotator' },
  };
}

describe('fuse settings', () => {
  it('turn off RunAsNode, NODE_OPTIONS, --inspect and file:// privileges; turn on cookie encryption, asar integrity and asar-only loading', () => {
    expect(FUSE_SETTINGS).toEqual({
      RunAsNode: false,
      EnableCookieEncryption: true,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
      GrantFileProtocolExtraPrivileges: false,
    });
  });

  it('map to @electron/fuses wire indices, with the ad-hoc signature reset on macOS only', () => {
    const mac = fuseConfig('darwin', 'darwin');
    expect(mac.version).toBe(FuseVersion.V1);
    expect(mac.resetAdHocDarwinSignature).toBe(true);
    expect(mac[FuseV1Options.RunAsNode]).toBe(false);
    expect(mac[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true);
    expect(mac[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
    expect(mac[FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]).toBeUndefined();
    expect(fuseConfig('mas', 'darwin').resetAdHocDarwinSignature).toBe(true);
    // codesign exists only on macOS: a macOS app packed elsewhere is left unsigned
    expect(fuseConfig('darwin', 'linux').resetAdHocDarwinSignature).toBe(false);
    expect(fuseConfig('linux').resetAdHocDarwinSignature).toBe(false);
    expect(fuseConfig('win32').resetAdHocDarwinSignature).toBe(false);
  });
});

describe('electronBinaryPath', () => {
  it('names the executable as electron-builder does on each platform', () => {
    expect(electronBinaryPath(context('linux'))).toBe(path.join(dir, 'cua-annotator'));
    expect(electronBinaryPath(context('win32'))).toBe(path.join(dir, 'cua-annotator.exe'));
    expect(electronBinaryPath(context('darwin'))).toBe(path.join(dir, 'cua-annotator.app'));
    expect(() => electronBinaryPath(context('beos'))).toThrow(/unknown platform/);
  });
});

describe('afterPack', () => {
  it('flips the fuses of a Linux executable and leaves the V8 snapshot fuse alone', async () => {
    const binary = path.join(dir, 'cua-annotator');
    await writeFile(binary, fakeElectron());
    await afterPack(context('linux'));
    // RunAsNode, Cookie, NodeOptions, Inspect, AsarIntegrity, AsarOnly, V8Snapshot, FileProtocol
    expect(await wireOf(binary)).toBe('01001100');
  });

  it('flips the fuses of a Windows executable (a V8 snapshot fuse that is on stays on)', async () => {
    const binary = path.join(dir, 'cua-annotator.exe');
    await writeFile(binary, fakeElectron('10110011'));
    await afterPack(context('win32'));
    expect(await wireOf(binary)).toBe('01001110');
  });

  it('fails the build when the binary has fewer fuses than the hook sets', async () => {
    await writeFile(path.join(dir, 'cua-annotator'), fakeElectron('101100'));
    await expect(afterPack(context('linux'))).rejects.toThrow(/not long enough/);
  });

  it('fails the build when the binary has no fuse wire', async () => {
    await writeFile(path.join(dir, 'cua-annotator'), Buffer.from('no sentinel here'));
    await expect(afterPack(context('linux'))).rejects.toThrow(/sentinel/);
  });
});
