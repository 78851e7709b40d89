// The macOS accessibility helper program (docs/helper-protocol.md): started by the recorder,
// it speaks the protocol on stdin/stdout through the koffi backend and exits 0 when the recorder
// sends the shutdown line or closes stdin. Logs go to stderr only. `--prompt` asks macOS to show
// its accessibility prompt once (AXIsProcessTrustedWithOptions) before the hello line.
import { createKoffiAxBackend, createKoffiSystem } from './ffi/koffi-backend';
import { startDarwinHelper } from './helper';
import { helperInput, helperOutput } from '../runtime/stdio';

// The app macOS attributes the permission to: the desktop app, or the terminal running the CLI.
const hostApp = process.env.CUA_ANNOTATOR_HOST_APP ?? 'the app that runs cua-annotator';

const output = helperOutput();
const backend = createKoffiAxBackend();
if (process.argv.includes('--prompt')) {
  backend.isProcessTrusted(true);
}
const { served } = startDarwinHelper({
  backend,
  system: createKoffiSystem(),
  nowMs: () => performance.now(),
  hostApp,
  input: helperInput(),
  output,
});
/** After the end, give stdout this long to drain before exiting anyway (ms). */
const EXIT_DRAIN_LIMIT_MS = 2000;

void (async (): Promise<void> => {
  const how = await served.done;
  process.stderr.write(`ax-helper: ${how}, exiting\n`);
  // pipes are asynchronous on macOS: let the last answers reach the recorder first
  setTimeout(() => process.exit(0), EXIT_DRAIN_LIMIT_MS).unref();
  output.write('', () => process.exit(0));
})();
