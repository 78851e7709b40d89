// Local ESLint rule: which src/ folder may import which (docs/architecture.md §2).
// Imports are resolved relative to the importing file; bare module names are checked against the
// per-module allow-list (native/effectful modules live in exactly one adapter each).
import path from 'node:path';

/** Folder → src/ folders it may import (itself always allowed). */
export const LAYERS = {
  shared: [],
  store: ['shared'],
  axtree: ['shared'],
  // the Node infrastructure layer: processes, ffmpeg/ffprobe (docs/architecture.md §5)
  infra: ['shared'],
  recorder: ['shared', 'axtree', 'infra'],
  pipeline: ['shared', 'infra'],
  // the replay driver and runner (docs/replay.md §4–§5)
  replay: ['shared', 'pipeline', 'infra'],
  services: ['shared', 'store', 'recorder', 'axtree', 'pipeline', 'infra', 'replay'],
  main: ['shared', 'services', 'infra'],
  preload: ['shared'],
  server: ['shared', 'services', 'infra'],
  cli: [
    'shared',
    'services',
    'server',
    'store',
    'recorder',
    'axtree',
    'pipeline',
    'infra',
    'replay',
    'hub',
  ],
  // the team hub host (docs/team-mode.md §2): never the local library's store, main or renderer
  hub: ['shared', 'infra', 'services', 'pipeline'],
  renderer: ['shared'],
  // the macOS and Windows accessibility helper programs: children spawned by the recorder,
  // speaking docs/helper-protocol.md (never imported by the recorder)
  helpers: ['shared', 'axtree'],
};

/** Extra allowances for composition roots. */
export const COMPOSITION_ROOTS = {
  'src/main/index.ts': ['store', 'recorder', 'axtree', 'pipeline', 'server'],
};

/** Bare modules that only one adapter (file or folder prefix) may import. */
export const ADAPTER_ONLY = {
  electron: ['src/main/', 'src/preload/'],
  'better-sqlite3': ['src/store/db.ts'],
  'uiohook-napi': ['src/recorder/input/hook-child.ts'],
  '@nut-tree-fork/nut-js': ['src/replay/driver-child.ts'],
  'dbus-next': ['src/axtree/platform/linux/'],
  '@aws-sdk/client-s3': ['src/services/upload/s3-client.ts'],
  // the hub's database drivers and query builder (all hub SQL: src/hub/db), its password hashing
  '@electric-sql/pglite': ['src/hub/db/'],
  pg: ['src/hub/db/'],
  kysely: ['src/hub/db/'],
  '@node-rs/argon2': ['src/hub/auth/passwords.ts'],
  // the job engine (docs/jobs.md): one adapter; BullMQ is measured in bench/ only
  'pg-boss': ['src/hub/jobs/engine.ts'],
  bullmq: [],
  // processes live in the infrastructure layer only (docs/architecture.md §5)
  'node:child_process': ['src/infra/'],
  child_process: [],
  execa: ['src/infra/'],
  // FFI to the OS accessibility APIs, only in the helpers' binding modules
  koffi: ['src/helpers/darwin/ffi/', 'src/helpers/win32/ffi/'],
};

/** services/ sub-folders and the sibling folders they must not import (docs/architecture.md §2):
 * review and export both use the keyframe code in keyframes/, never each other, and keyframes/
 * serves both, so it imports neither. */
export const SERVICES_APART = {
  review: ['export'],
  export: ['review'],
  keyframes: ['review', 'export'],
};

/** Folders where no node: builtin may be imported. */
export const NO_NODE = ['shared', 'renderer', 'preload'];
/** pipeline may use node: only in these sub-folders. */
const PIPELINE_NODE_OK = ['src/pipeline/io/', 'src/pipeline/media/'];
/** Folders limited to these packages: shared's one dependency is valibot (the contract's
 * schemas, docs/architecture.md §3). */
const PACKAGES_ONLY = { shared: ['valibot'] };

function srcFolder(rel) {
  const m = /^src\/([^/]+)\//.exec(rel);
  return m ? m[1] : null;
}

function servicesFolder(rel) {
  const m = /^src\/services\/([^/]+)\//.exec(rel);
  return m ? m[1] : null;
}

export const layeringRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the src/ layering of docs/architecture.md §2' },
    schema: [
      { type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false },
    ],
    messages: {
      layer: "'{{from}}' must not import from '{{to}}' (allowed: {{allowed}}).",
      adapter: "'{{module}}' may only be imported in {{where}}.",
      node: "'{{module}}': node builtins are not allowed in src/{{from}}{{hint}}.",
      package: "'{{module}}': src/{{from}} may import no package but {{allowed}}.",
      services:
        "'src/services/{{from}}' must not import from 'src/services/{{to}}' " +
        '(keyframe code shared by review and export lives in src/services/keyframes).',
    },
  },
  create(context) {
    const root = context.options[0]?.root ?? context.cwd;
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const from = srcFolder(file);
    if (!from) {
      return {};
    }
    function check(node, spec) {
      if (typeof spec !== 'string') {
        return;
      }
      if (spec.startsWith('.')) {
        const target = path
          .relative(root, path.resolve(path.dirname(context.filename), spec))
          .split(path.sep)
          .join('/');
        const to = srcFolder(target + '/');
        const servicesFrom = servicesFolder(file);
        const servicesTo = servicesFolder(target + '/');
        if (servicesFrom && servicesTo && SERVICES_APART[servicesFrom]?.includes(servicesTo)) {
          context.report({
            node,
            messageId: 'services',
            data: { from: servicesFrom, to: servicesTo },
          });
          return;
        }
        if (!to || to === from) {
          return;
        }
        const allowed = [...(LAYERS[from] ?? []), ...(COMPOSITION_ROOTS[file] ?? [])];
        // pipeline's pure folders stay pure: only pipeline/io and pipeline/media reach infra
        const isPurePipeline =
          from === 'pipeline' &&
          to === 'infra' &&
          !PIPELINE_NODE_OK.some((p) => file.startsWith(p));
        if (!allowed.includes(to) || isPurePipeline) {
          context.report({
            node,
            messageId: 'layer',
            data: { from: `src/${from}`, to: `src/${to}`, allowed: allowed.join(', ') || 'none' },
          });
        }
        return;
      }
      const bare = spec.startsWith('node:')
        ? spec
        : spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/');
      const owners = ADAPTER_ONLY[bare];
      if (owners && !owners.some((o) => file === o || (o.endsWith('/') && file.startsWith(o)))) {
        context.report({
          node,
          messageId: 'adapter',
          data: { module: bare, where: owners.join(', ') || 'nowhere' },
        });
        return;
      }
      const isNode = spec.startsWith('node:');
      const onlyPackages = PACKAGES_ONLY[from];
      if (!isNode && onlyPackages && !onlyPackages.includes(bare)) {
        context.report({
          node,
          messageId: 'package',
          data: { module: bare, from, allowed: onlyPackages.join(', ') },
        });
        return;
      }
      if (isNode && NO_NODE.includes(from)) {
        context.report({ node, messageId: 'node', data: { module: spec, from, hint: '' } });
      } else if (
        isNode &&
        from === 'pipeline' &&
        !PIPELINE_NODE_OK.some((p) => file.startsWith(p))
      ) {
        context.report({
          node,
          messageId: 'node',
          data: { module: spec, from, hint: ' outside pipeline/io and pipeline/media' },
        });
      }
    }
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

export const localPlugin = { rules: { layering: layeringRule } };
