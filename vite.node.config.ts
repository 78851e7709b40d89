// Vite build of the Node side (`npm run build:node`, part of `prepare`): the CLI as out/node/cli.js
// and each child-process entry beside it (out/node/<entry>.js, started by the bundled child
// launcher with process.execPath), so an install runs JavaScript and needs no tsx
// (docs/platform-linux.md §6). SSR (library) mode: every runtime dependency of package.json stays
// an import from node_modules (native modules, the AWS SDK, execa…); only our sources are bundled.
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import pkg from './package.json' with { type: 'json' };
import type { ChildEntry } from './src/infra/child-launcher';

const src = (file: string): string => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

/**
 * The CLI entry module: runs main() with the process arguments (the sources export main only).
 * With CUA_ANNOTATOR_DEBUG set, stack traces name the TypeScript sources (the .map files beside
 * the bundle); main is imported after that switch so its modules load with it.
 */
const CLI_ENTRY_ID = '\0cua-annotator-cli-entry';

function cliEntry(): Plugin {
  return {
    name: 'cua-annotator-cli-entry',
    resolveId: (id) => (id === CLI_ENTRY_ID ? id : null),
    load: (id) =>
      id === CLI_ENTRY_ID
        ? 'if (process.env.CUA_ANNOTATOR_DEBUG) process.setSourceMapsEnabled(true);\n' +
          `const { main } = await import(${JSON.stringify(src('cli/main.ts'))});\n` +
          'process.exitCode = await main(process.argv.slice(2));\n'
        : null,
  };
}

/**
 * The source of every child-process entry of src/infra/child-launcher.ts (CHILD_ENTRIES): its
 * bundled launcher starts out/node/<entry>.js, so a new entry there fails the typecheck here
 * until it is built too.
 */
const CHILD_ENTRY_SOURCES: Record<ChildEntry, string> = {
  'hook-child': src('recorder/input/hook-child.ts'),
  // the accessibility helpers (docs/helper-protocol.md); koffi stays an import (a runtime package)
  'ax-helper-win32': src('helpers/win32/main.ts'),
  'ax-helper-darwin': src('helpers/darwin/main.ts'),
  // the replay driver (docs/replay.md §4); nut-js stays an import (a runtime package)
  'replay-driver': src('replay/driver-child.ts'),
};

/** Entries written to out/node/<name>.js: the CLI and the child-process entries. */
export const NODE_ENTRIES: Record<string, string> = {
  cli: CLI_ENTRY_ID,
  ...CHILD_ENTRY_SOURCES,
};

/** Packages installed at run time: imported, never bundled (native addons need their own files). */
const RUNTIME_PACKAGES = [
  ...Object.keys(pkg.dependencies),
  ...Object.keys(pkg.optionalDependencies),
];

function isExternal(id: string): boolean {
  if (id.startsWith('node:') || builtinModules.includes(id)) {
    return true;
  }
  return RUNTIME_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`));
}

export default defineConfig({
  // no index.html, no public/ folder: this is a Node build
  publicDir: false,
  logLevel: 'warn',
  plugins: [cliEntry()],
  ssr: {
    target: 'node',
    // bundle everything that is not a runtime package (isExternal decides; nothing is resolved
    // from devDependencies at run time)
    noExternal: true,
  },
  build: {
    ssr: true,
    outDir: fileURLToPath(new URL('./out/node', import.meta.url)),
    emptyOutDir: true,
    target: 'node22',
    minify: false,
    sourcemap: true,
    reportCompressedSize: false,
    rolldownOptions: {
      input: NODE_ENTRIES,
      external: isExternal,
      output: {
        format: 'esm',
        entryFileNames: '[name].js',
        // commands stay lazy: each dynamic import in src/cli/main.ts becomes a chunk. Chunks sit
        // beside the entries, so `import.meta.dirname` is out/node/ in every bundled module (the
        // child launcher and the renderer lookup rely on it).
        chunkFileNames: '[name]-[hash].js',
      },
    },
  },
});
