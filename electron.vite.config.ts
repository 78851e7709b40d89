// electron-vite app bundle: main, preload and renderer (`npx electron-vite build`, no Electron
// binary needed). Main is ESM in out/main/ with every runtime dependency of package.json left an
// import from node_modules (native addons need their own files); the child-process entries of
// src/infra/child-launcher.ts are built beside it (out/main/<entry>.js), where the app's
// utilityProcess launcher (src/main/launcher.ts) starts them. Each preload (the main window's and
// the HUD's) is one CommonJS file with everything bundled in: a sandboxed preload may require
// nothing but 'electron'.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { ChildEntry } from './src/infra/child-launcher';

const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));

/** The source of every child-process entry: a new entry fails the typecheck until built here. */
const CHILD_ENTRY_SOURCES: Record<ChildEntry, string> = {
  'hook-child': here('./src/recorder/input/hook-child.ts'),
  'ax-helper-win32': here('./src/helpers/win32/main.ts'),
  'ax-helper-darwin': here('./src/helpers/darwin/main.ts'),
  'replay-driver': here('./src/replay/driver-child.ts'),
};

export default defineConfig({
  main: {
    build: {
      outDir: here('./out/main'),
      emptyOutDir: true,
      target: 'node22',
      minify: false,
      sourcemap: true,
      reportCompressedSize: false,
      // dependencies (better-sqlite3, uiohook-napi, dbus-next, the AWS SDK, execa…) stay imports
      externalizeDeps: true,
      rolldownOptions: {
        input: { index: here('./src/main/index.ts'), ...CHILD_ENTRY_SOURCES },
        output: {
          format: 'es',
          entryFileNames: '[name].js',
          // chunks beside the entries: import.meta.dirname is out/main in every module
          chunkFileNames: '[name]-[hash].js',
        },
      },
    },
  },
  preload: {
    build: {
      outDir: here('./out/preload'),
      emptyOutDir: true,
      minify: false,
      sourcemap: true,
      reportCompressedSize: false,
      // bundle valibot and our shared code in: the sandbox gives the preload no module loader
      externalizeDeps: false,
      isolatedEntries: true,
      rolldownOptions: {
        // the main window's preload, and the HUD's (the HUD's methods only)
        input: { index: here('./src/preload/index.ts'), hud: here('./src/preload/hud.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: here('./src/renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: here('./out/renderer'),
      emptyOutDir: true,
      target: 'es2022',
      minify: true,
      sourcemap: true,
      rollupOptions: {
        input: here('./src/renderer/index.html'),
      },
    },
  },
});
