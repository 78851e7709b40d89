// A real S3 implementation for upload tests: OpenStack Swift with its s3api middleware (plus
// memcached) on 127.0.0.1, in a fresh run directory on free ports (docs/platform-linux.md §9.1).
// The proxy's access log is sent over UDP syslog to this process, so tests can count the S3
// requests the server really received (e.g. UploadPart) independently of the client.
//
//   const swift = await startSwift();
//   ... new S3Client({ endpoint: swift.endpoint, region: 'us-east-1', forcePathStyle: true,
//                      credentials: swift.credentials }) ...
//   await swift.stopProxy(); await swift.startProxy();   // an outage
//   await swift.stop();
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Credentials of the tempauth user (access key contains a colon). */
export const SWIFT_CREDENTIALS = { accessKeyId: 'test:tester', secretAccessKey: 'testing' };
/** Region the s3api middleware reports. */
export const SWIFT_REGION = 'us-east-1';

/** One S3-level request as logged by the proxy. */
export type SwiftRequest = {
  method: string;
  /** Path without the query, URL-decoded, e.g. `/bucket/a/b.bin`. */
  path: string;
  query: URLSearchParams;
  status: number;
};

/** A running Swift. */
export type Swift = {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  port: number;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Environment for child processes (AWS_* variables, HOME without ~/.aws). */
  env: NodeJS.ProcessEnv;
  runDir: string;
  /** S3-level requests the proxy has logged so far (UDP, so give it a few ms after a call). */
  requests: () => SwiftRequest[];
  /** Waits until the log has caught up with every request made so far. */
  settleLog: () => Promise<void>;
  /** Stops the proxy server only (an outage); the storage servers keep running. */
  stopProxy: () => Promise<void>;
  /** Starts the proxy again on the same port and waits until it is healthy. */
  startProxy: () => Promise<void>;
  /** Stops everything and removes the run directory; safe to call twice. */
  stop: () => Promise<void>;
};

const SWIFT_PYTHON = '/usr/bin/python3';
const START_TIMEOUT_MS = 20_000;
const EXIT_WAIT_MS = 3000;

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function isHealthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthcheck`, {
      signal: AbortSignal.timeout(1000),
    });
    return res.status === 200;
  } catch {
    return false;
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, logs: () => string) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await check()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Swift: ${what} not ready within ${START_TIMEOUT_MS} ms\n${logs()}`);
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: 30_000 }, (error, _stdout, stderr) => {
      if (error) {
        reject(new Error(`${command} failed: ${error.message}\n${stderr}`));
      } else {
        resolve();
      }
    });
  });
}

// Same rings as the spec's swift-ring-builder recipe (create 8 1 1; add r1z1-127.0.0.1:<p>/d1
// 100; rebalance), built in one Python process: ~0.7 s instead of ~6 s for nine CLI runs.
const RING_SCRIPT = `
import sys
from swift.common.ring import RingBuilder
for arg in sys.argv[1:]:
    name, port = arg.split(':')
    b = RingBuilder(8, 1, 1)
    b.add_dev({'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': int(port),
               'device': 'd1', 'weight': 100, 'meta': ''})
    b.rebalance()
    b.get_ring().save(name + '.ring.gz')
`;

function serverConf(
  name: string,
  port: number,
  etc: string,
  node: string,
  logPort: number,
): string {
  return [
    '[DEFAULT]',
    'bind_ip = 127.0.0.1',
    `bind_port = ${port}`,
    // single process (no fork): the pid we hold is the server, so stop/start is exact
    'workers = 0',
    `user = ${os.userInfo().username}`,
    `swift_dir = ${etc}`,
    `devices = ${node}`,
    'mount_check = false',
    'disable_fallocate = true',
    'log_udp_host = 127.0.0.1',
    `log_udp_port = ${logPort}`,
    '[pipeline:main]',
    `pipeline = ${name}-server`,
    `[app:${name}-server]`,
    `use = egg:swift#${name}`,
    '',
  ].join('\n');
}

function proxyConf(port: number, etc: string, memcachePort: number, logPort: number): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
user = ${os.userInfo().username}
swift_dir = ${etc}
log_udp_host = 127.0.0.1
log_udp_port = ${logPort}

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk s3api tempauth copy container-quotas slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
allow_account_management = true

[filter:s3api]
use = egg:swift#s3api
location = ${SWIFT_REGION}

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${memcachePort}

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:bulk]
use = egg:swift#bulk

[filter:copy]
use = egg:swift#copy

# a bucket's quota (X-Container-Meta-Quota-Bytes): tests of a full store
[filter:container-quotas]
use = egg:swift#container_quotas

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
`;
}

/** Parses one proxy access-log line; null for other log lines and Swift sub-requests. */
export function parseAccessLine(line: string): SwiftRequest | null {
  // "proxy-server: <client> <remote> <date> <METHOD> <path> HTTP/1.0 <status> ... <source> ..."
  const m = /proxy-server: \S+ \S+ \S+ (GET|PUT|POST|HEAD|DELETE) (\S+) HTTP\/[\d.]+ (\d{3}) /.exec(
    line,
  );
  if (!m) {
    return null;
  }
  const rawPath = decodeURIComponent(m[2]!);
  // the s3api request is logged by the outer proxy-logging (source "-"); sub-requests that s3api
  // makes against /v1/AUTH_… are logged again with their swift.source: keep S3-level only
  if (rawPath.startsWith('/v1/') || rawPath.startsWith('/auth/') || rawPath === '/healthcheck') {
    return null;
  }
  const q = rawPath.indexOf('?');
  return {
    method: m[1]!,
    path: q < 0 ? rawPath : rawPath.slice(0, q),
    query: new URLSearchParams(q < 0 ? '' : rawPath.slice(q + 1)),
    status: Number(m[3]),
  };
}

async function killAndWait(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WAIT_MS);
  await exited;
  clearTimeout(timer);
}

// Starts memcached and the four Swift servers on free loopback ports; resolves when healthy.
export async function startSwift(): Promise<Swift> {
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'cua-swift-'));
  const etc = path.join(runDir, 'etc');
  const node = path.join(runDir, 'node');
  await mkdir(etc, { recursive: true });
  await mkdir(path.join(node, 'd1'), { recursive: true });
  await mkdir(path.join(runDir, 'home'), { recursive: true });

  const lines: string[] = [];
  const requests: SwiftRequest[] = [];
  const logSocket = dgram.createSocket('udp4');
  logSocket.on('message', (msg) => {
    const text = msg.toString('utf8');
    lines.push(text);
    if (lines.length > 2000) {
      lines.splice(0, 1000);
    }
    const r = parseAccessLine(text);
    if (r) {
      requests.push(r);
    }
  });
  await new Promise<void>((resolve) => logSocket.bind(0, '127.0.0.1', () => resolve()));
  const logPort = logSocket.address().port;

  const [proxyPort, accountPort, containerPort, objectPort, memcachePort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ] as [number, number, number, number, number];
  const storage = [
    { name: 'account', port: accountPort },
    { name: 'container', port: containerPort },
    { name: 'object', port: objectPort },
  ];
  await writeFile(
    path.join(etc, 'swift.conf'),
    '[swift-hash]\nswift_hash_path_suffix = x\nswift_hash_path_prefix = y\n' +
      '[storage-policy:0]\nname = Policy-0\ndefault = yes\n',
  );
  for (const s of storage) {
    await writeFile(
      path.join(etc, `${s.name}-server.conf`),
      serverConf(s.name, s.port, etc, node, logPort),
    );
  }
  await writeFile(
    path.join(etc, 'proxy-server.conf'),
    proxyConf(proxyPort, etc, memcachePort, logPort),
  );
  const children = new Set<ChildProcess>();
  const output: string[] = [];
  const launch = (command: string, args: string[]): ChildProcess => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.on('error', (e) => output.push(`${command}: ${e.message}`));
    const keep = (d: Buffer) => {
      output.push(`${path.basename(command)}: ${d.toString()}`);
      if (output.length > 200) {
        output.splice(0, 100);
      }
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  const logs = () => [...output, ...lines.slice(-20)].join('\n');

  // storage servers do not read the rings: start them while the rings are built
  launch('memcached', ['-l', '127.0.0.1', '-p', String(memcachePort), '-U', '0', '-u', 'root']);
  for (const s of storage) {
    launch(`swift-${s.name}-server`, [path.join(etc, `${s.name}-server.conf`)]);
  }
  let proxy: ChildProcess | null = null;
  const startProxy = async () => {
    if (proxy && proxy.exitCode === null && proxy.signalCode === null) {
      return;
    }
    proxy = launch('swift-proxy-server', [path.join(etc, 'proxy-server.conf')]);
    await waitFor('proxy', () => isHealthy(proxyPort), logs);
  };

  let stopping: Promise<void> | null = null;
  const stop = async () => {
    stopping ??= (async () => {
      await Promise.all([...children].map((c) => killAndWait(c)));
      logSocket.close();
      await rm(runDir, { recursive: true, force: true });
    })();
    await stopping;
  };

  try {
    await run(SWIFT_PYTHON, ['-c', RING_SCRIPT, ...storage.map((s) => `${s.name}:${s.port}`)], etc);
    for (const s of storage) {
      await waitFor(`${s.name} server`, () => canConnect(s.port), logs);
    }
    await waitFor('memcached', () => canConnect(memcachePort), logs);
    await startProxy();
  } catch (e) {
    await stop();
    throw e;
  }

  const endpoint = `http://127.0.0.1:${proxyPort}`;
  const marker = `/__settle_${process.pid}`;
  let settleCount = 0;
  return {
    endpoint,
    port: proxyPort,
    region: SWIFT_REGION,
    credentials: { ...SWIFT_CREDENTIALS },
    env: {
      AWS_ACCESS_KEY_ID: SWIFT_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: SWIFT_CREDENTIALS.secretAccessKey,
      AWS_SESSION_TOKEN: '',
      AWS_REGION: SWIFT_REGION,
      AWS_DEFAULT_REGION: SWIFT_REGION,
      AWS_ENDPOINT_URL: endpoint,
      AWS_ENDPOINT_URL_S3: '',
      AWS_PROFILE: '',
      // never reach for instance metadata (169.254.169.254) when no credentials are given
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: path.join(runDir, 'home', 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(runDir, 'home', 'aws-credentials'),
      HOME: path.join(runDir, 'home'),
    },
    runDir,
    requests: () => [...requests],
    settleLog: async () => {
      // an unauthenticated marker request is logged after everything sent before it
      settleCount += 1;
      const name = `${marker}_${settleCount}`;
      await fetch(`${endpoint}${name}`).catch(() => undefined);
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && !requests.some((r) => r.path === name)) {
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    stopProxy: async () => {
      await killAndWait(proxy);
      proxy = null;
    },
    startProxy,
    stop,
  };
}
