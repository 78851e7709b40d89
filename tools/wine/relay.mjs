// Windows side of the Wine test bridge (tests/helpers/wine.ts), run by Windows Node under Wine:
// `node.exe relay.mjs <port> <script> [args…]`. Windows Node cannot use the Linux pipes Wine
// hands it as stdin/stdout (libuv fails with EBADF), so the Linux side (bridge.mjs) listens on
// 127.0.0.1:<port> and this relay connects twice: one connection carries the script's stdin and
// stdout, the other its stderr. The script itself runs as a child of this relay with real
// Windows pipes as its stdio, as the recorder runs a helper on Windows. When the stdio
// connection ends (the test closed the helper's stdin) the child's stdin is closed; the child's
// exit code becomes the relay's (and wine's) exit code.
import { spawn } from 'node:child_process';
import net from 'node:net';

// `process` is the global: importing node:process would read process.stdout and process.stderr,
// and under Wine those getters throw EBADF when the handles are Linux pipes (relay.mjs writes to
// neither).
const { process } = globalThis;

const [port, script, ...args] = process.argv.slice(2);
if (!port || !script) {
  process.exit(2); // usage: relay.mjs <port> <script> [args…]
}

/** Connects to the bridge and says which stream this connection is. */
function connect(tag) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(`${tag}\n`);
      resolve(socket);
    });
  });
}

const stdio = await connect('stdio');
const stderr = await connect('stderr');
const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
child.stdin.on('error', () => undefined);
stdio.on('data', (chunk) => child.stdin.write(chunk));
stdio.on('end', () => child.stdin.end());
child.stdout.on('data', (chunk) => stdio.write(chunk));
child.stderr.on('data', (chunk) => stderr.write(chunk));
child.on('error', (error) => {
  stderr.write(`relay: cannot start ${script}: ${error.message}\n`);
});
child.on('close', (code, signal) => {
  if (signal) {
    stderr.write(`relay: ${script} ended by ${signal}\n`);
  }
  // exit once both connections have flushed (half-open sockets would keep the relay alive)
  let open = 2;
  const flushed = () => {
    open -= 1;
    if (open === 0) {
      process.exit(code ?? 1);
    }
  };
  stdio.end(flushed);
  stderr.end(flushed);
});
