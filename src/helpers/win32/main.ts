// Entry of the Windows accessibility helper (docs/helper-protocol.md): per-monitor-v2 DPI
// awareness first (before any other OS call), COM as multithreaded, UI Automation when it can be
// created (else the helper still starts, without the UIA capabilities), then the protocol loop
// with focus and display polling; exits 0 when the loop ends (shutdown line or stdin EOF), after
// CoUninitialize. Run as a child of the recorder: `node main.js` (bundled) or `tsx main.ts`;
// `--self-test` prints one JSON line proving COM calls through koffi work here (ffi/self-test.ts).
import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { serveHelper } from '../runtime/serve';
import { helperInput, helperOutput } from '../runtime/stdio';
import { bindCom } from './ffi/com';
import { comSelfTest } from './ffi/self-test';
import { loadKoffi } from './ffi/koffi';
import type { UiaSession } from './ffi/uia';
import { createUiaSession } from './ffi/uia';
import { bindWin32, setDpiAwareness } from './ffi/win32';
import { DEFAULT_CALL_TIMEOUT_MS, createWin32Helper } from './helper';

/** Focus polling period, ms. */
const FOCUS_POLL_MS = 250;
/** Display-layout polling period, ms. */
const DISPLAYS_POLL_MS = 2000;

function log(message: string): void {
  try {
    // fd 2 directly: under Wine, process.stderr on a Unix pipe throws EBADF
    writeSync(2, `uia-helper: ${message}\n`);
  } catch {
    // nowhere left to log
  }
}

/** Resolves once everything written to `stream` before is out (at most `limitMs` later). */
function flushed(stream: Writable, limitMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, limitMs);
    stream.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function main(): Promise<number> {
  if (process.platform !== 'win32') {
    log(`runs on Windows only (this is ${process.platform})`);
    return 2;
  }
  const koffi = await loadKoffi();
  const dpi = setDpiAwareness(koffi);
  const win32 = bindWin32(koffi);
  const com = bindCom(koffi);
  const initHr = com.initialize();
  const output = helperOutput();
  if (process.argv.includes('--self-test')) {
    // COM through koffi without UI Automation (docs/helper-protocol.md §6), then exit
    const result = { dpi, com: comSelfTest(com, initHr) };
    output.write(`${JSON.stringify(result)}\n`);
    await flushed(output);
    if (initHr >= 0) {
      com.uninitialize();
    }
    return 0;
  }
  let session: UiaSession | null = null;
  let uiaError: string | undefined;
  if (initHr < 0 && initHr >>> 0 !== 0x80010106) {
    uiaError = `CoInitializeEx failed with HRESULT 0x${(initHr >>> 0).toString(16)}`;
  } else {
    try {
      session = createUiaSession(com, DEFAULT_CALL_TIMEOUT_MS);
    } catch (error) {
      uiaError = errorText(error);
    }
  }
  log(
    `dpi awareness ${dpi}; ${session === null ? `UI Automation unavailable: ${uiaError ?? ''}` : `UI Automation ${session.info.clsid}, timeouts ${session.info.timeouts ? 'set' : 'not set'}`}`,
  );
  const helper = createWin32Helper({
    win32,
    uia: session?.backend ?? null,
    ...(uiaError === undefined ? {} : { uiaError }),
    nowMs: () => performance.now(),
  });
  const served = serveHelper({
    name: 'uia-helper',
    os: 'win32',
    capabilities: helper.capabilities,
    handlers: helper.handlers,
    input: helperInput(),
    output,
  });

  let lastPollError = '';
  const poll = (what: string, run: () => void): void => {
    try {
      run();
    } catch (error) {
      const text = `${what} poll failed: ${errorText(error)}`;
      if (text !== lastPollError) {
        log(text);
        lastPollError = text;
      }
    }
  };
  const timers: NodeJS.Timeout[] = [];
  if (session !== null) {
    timers.push(
      setInterval(() => {
        poll('focus', () => {
          const focus = helper.pollFocus();
          if (focus !== null) {
            served.emit('focus', focus);
          }
        });
      }, FOCUS_POLL_MS),
    );
  }
  poll('displays', () => {
    helper.pollDisplays(); // the first poll records the layout
  });
  timers.push(
    setInterval(() => {
      poll('displays', () => {
        const displays = helper.pollDisplays();
        if (displays !== null) {
          served.emit('displays', { displays });
        }
      });
    }, DISPLAYS_POLL_MS),
  );

  const how = await served.done;
  for (const timer of timers) {
    clearInterval(timer);
  }
  session?.close();
  if (initHr >= 0) {
    com.uninitialize();
  }
  await flushed(output); // the last answers, before process.exit
  log(`exiting (${how})`);
  return 0;
}

void (async (): Promise<void> => {
  try {
    const code = await main();
    process.exit(code);
  } catch (error) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  }
})();
