// Types of after-pack.mjs (the electron-builder afterPack hook).
import type { FuseV1Config, FuseV1Options } from '@electron/fuses';

/** The fuses the hook sets, by @electron/fuses name. */
export type FuseName = keyof typeof FuseV1Options;

/** What the hook reads of electron-builder's AfterPackContext. */
export type PackContext = {
  appOutDir: string;
  electronPlatformName: string;
  packager: { appInfo: { productFilename: string }; executableName?: string };
};

export declare const FUSE_SETTINGS: Readonly<Partial<Record<FuseName, boolean>>>;
export declare function fuseConfig(platform: string, host?: NodeJS.Platform): FuseV1Config;
export declare function electronBinaryPath(context: PackContext): string;
export declare function afterPack(context: PackContext): Promise<void>;
export default afterPack;
