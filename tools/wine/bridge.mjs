// Linux side of the Wine test bridge (tests/helpers/wine.ts): makes a Windows Node script under
// Wine look like an ordinary child process with stdin/stdout/stderr pipes, so tests (and the
// recorder's own NativeHelperProcess) can drive it. Usage, with the Wine environment
// (WINEPREFIX, DISPLAY…) in this process's environment:
//   node bridge.mjs <wine64> <node.exe> <relay.mjs> <script> [args…]
// It listens on 127.0.0.1, starts `wine64 node.exe relay.mjs <port> <script> …` (relay.mjs: the
// Windows side), and copies its own stdin to the stdio connection, that connection to its stdout,
// and the stderr connection to its stderr. EOF on its stdin is passed on (the script's stdin
// closes); it exits with wine's exit code (the script's). SIGTERM/SIGINT kill wine at once.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';

const [wine, nodeExe, relay, script, ...args] = process.argv.slice(2);
if (!wine || !nodeExe || !relay || !script) {
  process.stderr.write('usage: bridge.mjs <wine64> <node.exe> <relay.mjs> <script> [args…]\n');
  process.exit(2);
}

const streams = { stdio: null, stderr: null };
let stdinEnded = false;

/** Routes one accepted connection by its first line (`stdio` or `stderr`). */
function accept(socket) {
  let head = '';
  const onData = (chunk) => {
    head += chunk.toString('latin1');
    const newline = head.indexOf('\n');
    if (newline < 0) {
      return;
    }
    socket.off('data', onData);
    const tag = head.slice(0, newline);
    const rest = Buffer.from(head.slice(newline + 1), 'latin1');
    if (tag === 'stdio') {
      streams.stdio = socket;
      if (rest.length > 0) {
        process.stdout.write(rest);
      }
      socket.on('data', (data) => process.stdout.write(data));
      if (stdinEnded) {
        socket.end();
      }
    } else if (tag === 'stderr') {
      streams.stderr = socket;
      if (rest.length > 0) {
        process.stderr.write(rest);
      }
      socket.on('data', (data) => process.stderr.write(data));
    } else {
      socket.destroy();
    }
  };
  socket.on('data', onData);
  socket.on('error', () => undefined);
}

const server = net.createServer({ allowHalfOpen: true }, accept);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  // wine's own stderr goes to a file, copied to ours at the end: with a Linux pipe as its stderr
  // the relay's child never sees EOF on its stdin pipe (Wine 8)
  const wineLog = path.join(os.tmpdir(), `wine-bridge-${process.pid}.log`);
  const wineLogFd = openSync(wineLog, 'w');
  const child = spawn(wine, [nodeExe, relay, String(port), script, ...args], {
    stdio: ['ignore', 'ignore', wineLogFd],
  });
  closeSync(wineLogFd);
  const copyWineLog = () => {
    try {
      process.stderr.write(readFileSync(wineLog));
      rmSync(wineLog, { force: true });
    } catch {
      // already copied
    }
  };
  // stdin lines that arrive before the relay connected wait in the paused stdin stream
  process.stdin.on('data', (chunk) => streams.stdio?.write(chunk));
  process.stdin.on('end', () => {
    stdinEnded = true;
    streams.stdio?.end();
  });
  process.stdin.pause();
  const resumeWhenConnected = setInterval(() => {
    if (streams.stdio) {
      clearInterval(resumeWhenConnected);
      process.stdin.resume();
    }
  }, 20);
  const stop = () => {
    child.kill('SIGKILL');
    copyWineLog();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  child.on('error', (error) => {
    process.stderr.write(`bridge: cannot start ${wine}: ${error.message}\n`);
    process.exit(127);
  });
  child.on('close', (code, signal) => {
    clearInterval(resumeWhenConnected);
    server.close();
    copyWineLog();
    process.exitCode = code ?? (signal ? 137 : 1);
    // the relay ends both connections before it exits: let their last bytes through (at most 2 s)
    const open = [streams.stdio, streams.stderr].filter((s) => s && !s.readableEnded);
    let left = open.length;
    const finish = () => {
      streams.stdio?.destroy();
      streams.stderr?.destroy();
      process.stdin.destroy();
    };
    const timer = setTimeout(finish, 2000);
    if (left === 0) {
      clearTimeout(timer);
      finish();
    }
    for (const socket of open) {
      socket.once('end', () => {
        left -= 1;
        if (left === 0) {
          clearTimeout(timer);
          finish();
        }
      });
    }
  });
});
