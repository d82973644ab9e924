import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/database/embedded-database';
import { CLAIM_FILE, type ClaimRecord } from '../../src/database/data-dir-claim';
import { pollUntil } from './deadline';
import { HttpClient } from './http';

const root = join(__dirname, '..', '..');

export interface RunAs {
  uid: number;
  gid: number;
}

/** The FerretDB binary the tests use: FERRETDB_BIN, or the one `go install` put under GOPATH. */
export function ferretdbBinary(): string {
  if (process.env.FERRETDB_BIN) return process.env.FERRETDB_BIN;
  const gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim().split(':')[0];
  return join(gopath, 'bin', 'ferretdb');
}

/**
 * What a clone holds once built, under `dir`/app: `dist`, `package.json` and `node_modules`, with
 * node and FerretDB beside them in `tools/`, all as hard links (no data copied; a real copy across
 * file systems), so the copy lives wholly under `dir` whatever the permissions above the project.
 * `owner` gets the app folder (where DATA_DIR is made).
 */
export function cloneBuiltService(dir: string, owner?: RunAs): { app: string; node: string; ferretdb: string } {
  const app = join(dir, 'app');
  mkdirSync(join(app, 'tools'), { recursive: true });
  const copy = (from: string, to: string) => {
    try {
      execFileSync('cp', ['-al', from, to]);
    } catch {
      execFileSync('cp', ['-a', from, to]);
    }
  };
  if (!existsSync(join(root, 'dist', 'main.js')))
    throw new Error('dist/main.js is missing: run "npx nest build" first (npm test does it)');
  for (const name of ['dist', 'package.json', 'node_modules']) copy(join(root, name), join(app, name));
  copy(process.execPath, join(app, 'tools', 'node'));
  copy(ferretdbBinary(), join(app, 'tools', 'ferretdb'));
  if (owner) chownSync(app, owner.uid, owner.gid);
  return { app, node: join(app, 'tools', 'node'), ferretdb: join(app, 'tools', 'ferretdb') };
}

export interface RunningService {
  child: ChildProcess;
  http: HttpClient;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node dist/main.js` in `app` with the embedded database (no MONGODB_URI), as `user` when given. */
export async function startService(
  clone: { app: string; node: string; ferretdb: string },
  env: Record<string, string> = {},
  user?: RunAs,
): Promise<RunningService> {
  const port = await freePort();
  const child = spawn(clone.node, ['dist/main.js'], {
    cwd: clone.app,
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: clone.app,
      HOST: '127.0.0.1',
      PORT: String(port),
      FERRETDB_BIN: clone.ferretdb,
      // The run's Mailpit (global-setup.ts), as every service of the tests mails to.
      ...(process.env.SMTP_URL ? { SMTP_URL: process.env.SMTP_URL } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(user ?? {}),
  });
  return track(child, port);
}

export function track(child: ChildProcess, port: number): RunningService {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return { child, http: new HttpClient(`http://127.0.0.1:${port}`), output: () => output, exited };
}

/** Waits for /health to answer 200; fails with the service's output otherwise. */
export async function untilHealthy(service: RunningService, ms = 120_000): Promise<void> {
  const up = await pollUntil(
    async () => service.child.exitCode === null && (await service.http.get('/health')).status === 200,
    ms,
    500,
  );
  if (!up) throw new Error(`the service did not report healthy within ${ms} ms:\n${service.output()}`);
}

export function readClaimFile(dataDir: string): ClaimRecord {
  return JSON.parse(readFileSync(join(dataDir, CLAIM_FILE), 'utf8')) as ClaimRecord;
}

/** Whether `pid` runs (a zombie, exited and not yet reaped, does not). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The real user id a process runs as. */
export function processUid(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

export async function stopAndWait(
  service: RunningService,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill(signal);
  return service.exited;
}
