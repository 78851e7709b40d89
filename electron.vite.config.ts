// electron-vite app bundle. Only the renderer exists yet; main and preload are added with the
// Electron host (electron-vite builds just the sections present). The Node side of an install
// (CLI, child-process entries) is built by vite.node.config.ts; the app's main build takes its
// child entries from there (NODE_ENTRIES) so its utilityProcess launcher finds <entry>.js beside
// the main bundle.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const rendererRoot = fileURLToPath(new URL('./src/renderer', import.meta.url));

export default defineConfig({
  renderer: {
    root: rendererRoot,
    base: './',
    plugins: [react()],
    build: {
      outDir: fileURLToPath(new URL('./out/renderer', import.meta.url)),
      emptyOutDir: true,
      target: 'es2022',
      minify: true,
      sourcemap: true,
      rollupOptions: {
        input: fileURLToPath(new URL('./src/renderer/index.html', import.meta.url)),
      },
    },
  },
});
