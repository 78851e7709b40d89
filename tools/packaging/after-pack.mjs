// electron-builder `afterPack` hook (electron-builder.yml): flips the Electron fuses of the packed
// app with @electron/fuses, before electron-builder signs it, then reads the fuse wire back and
// fails the build if any fuse did not take (docs/packaging.md §2). Plain JavaScript so that
// electron-builder loads it on any packaging machine; its types are in after-pack.d.mts.
import path from 'node:path';
import process from 'node:process';
import fuses from '@electron/fuses';

const { flipFuses, getCurrentFuseWire, FuseV1Options, FuseVersion } = fuses;

/** The byte @electron/fuses writes for an enabled / a disabled fuse ('1' / '0'). */
const ENABLED = 0x31;
const DISABLED = 0x30;

/**
 * Every fuse we set, by its @electron/fuses name (FuseV1Options), and why (docs/packaging.md §2).
 * LoadBrowserProcessSpecificV8Snapshot is left as Electron ships it (off).
 */
export const FUSE_SETTINGS = Object.freeze({
  // the app binary never runs as plain Node (ELECTRON_RUN_AS_NODE): our children are utility
  // processes (src/main/launcher.ts)
  RunAsNode: false,
  // cookies on disk are encrypted with the OS key store
  EnableCookieEncryption: true,
  // NODE_OPTIONS and NODE_EXTRA_CA_CERTS cannot inject code or flags
  EnableNodeOptionsEnvironmentVariable: false,
  // --inspect and --inspect-brk cannot attach a debugger to the main process
  EnableNodeCliInspectArguments: false,
  // Electron checks app.asar against the hash electron-builder embeds (macOS, Windows)
  EnableEmbeddedAsarIntegrityValidation: true,
  // the app code is loaded from app.asar only, never from a planted app/ folder beside it
  OnlyLoadAppFromAsar: true,
  // the renderer is served by the cua-app:// protocol (src/main/app-protocol.ts), so file://
  // pages need none of Electron's extra privileges
  GrantFileProtocolExtraPrivileges: false,
});

/**
 * The @electron/fuses configuration for a platform (electron-builder's electronPlatformName):
 * FUSE_SETTINGS by wire index, and for a macOS app packed on macOS the ad-hoc signature reset that
 * arm64 needs after the binary changed (it runs `codesign`, which only macOS has; electron-builder
 * signs properly afterwards when an identity is configured).
 */
export function fuseConfig(platform, host = process.platform) {
  const config = {
    version: FuseVersion.V1,
    resetAdHocDarwinSignature: (platform === 'darwin' || platform === 'mas') && host === 'darwin',
  };
  for (const [name, enabled] of Object.entries(FUSE_SETTINGS)) {
    const index = FuseV1Options[name];
    if (typeof index !== 'number') {
      throw new Error(`@electron/fuses has no fuse named ${name}`);
    }
    config[index] = enabled;
  }
  return config;
}

/** The packed Electron executable (the .app bundle on macOS), as electron-builder names it. */
export function electronBinaryPath(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  switch (electronPlatformName) {
    case 'darwin':
    case 'mas':
      return path.join(appOutDir, `${packager.appInfo.productFilename}.app`);
    case 'win32':
      return path.join(appOutDir, `${packager.appInfo.productFilename}.exe`);
    case 'linux':
      return path.join(appOutDir, packager.executableName);
    default:
      throw new Error(`after-pack: unknown platform ${electronPlatformName}`);
  }
}

/** Flips the fuses of the packed app and checks the wire afterwards. */
export async function afterPack(context) {
  const binary = electronBinaryPath(context);
  await flipFuses(binary, fuseConfig(context.electronPlatformName));
  const wire = await getCurrentFuseWire(binary);
  const wrong = Object.entries(FUSE_SETTINGS)
    .filter(([name, enabled]) => wire[FuseV1Options[name]] !== (enabled ? ENABLED : DISABLED))
    .map(([name, enabled]) => `${name} should be ${enabled ? 'on' : 'off'}`);
  if (wrong.length > 0) {
    throw new Error(`after-pack: fuses not set in ${binary}: ${wrong.join(', ')}`);
  }
}

export default afterPack;
