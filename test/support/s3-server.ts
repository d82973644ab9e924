import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/database/embedded-database';

/**
 * A throwaway S3-compatible server (GoFakeS3, built with Go once: scripts/install-gofakes3.sh),
 * keeping its objects under a temporary folder, with one bucket made at start. It checks no
 * signatures: the keys given are what a client signs with, as against a real store.
 *
 * What the asset store uses of multipart uploads it has: create, upload part, list parts, complete,
 * abort, and multi-object delete. Where it is laxer than S3, a test passes that S3 would fail, so
 * these stay the production store's concern: it accepts parts under 5 MiB that are not the last (S3
 * answers `EntityTooSmall` on completion; `@tus/s3-store` keeps such a tail as `<id>.part`), keeps
 * unfinished multipart uploads in memory only (lost if it restarts), and decodes no `aws-chunked`
 * body with a checksum trailer (the asset store's client sends none).
 */
export interface S3Server {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

/** The binary: GOFAKES3_BIN, else $(go env GOPATH)/bin/gofakes3, built there once when missing. */
function gofakes3Binary(): string {
  if (process.env.GOFAKES3_BIN) return process.env.GOFAKES3_BIN;
  const binary = join(execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim(), 'bin', 'gofakes3');
  if (!existsSync(binary)) {
    execFileSync('bash', [join(__dirname, '../../scripts/install-gofakes3.sh'), binary], { stdio: ['ignore', process.stderr, process.stderr] });
  }
  return binary;
}

export async function startS3Server(bucket = 'test-assets'): Promise<S3Server> {
  const port = await freePort();
  const folder = mkdtempSync(join(tmpdir(), 's3-server-'));
  let output = '';
  const child: ChildProcess = spawn(
    gofakes3Binary(),
    ['-backend', 'fs', '-fs.path', folder, '-fs.create', '-host', `127.0.0.1:${port}`, '-initialbucket', bucket, '-quiet'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const failed = new Promise<never>((_, fail) => {
    child.once('error', (error) => fail(new Error(`gofakes3 did not start (${error.message})`)));
    child.once('exit', (code) => fail(new Error(`gofakes3 exited (${code}) before it was ready: ${output}`)));
  });
  await Promise.race([failed, untilBucket(endpoint, bucket)]);
  return {
    endpoint,
    region: 'us-east-1',
    bucket,
    accessKeyId: 'test-access-key',
    secretAccessKey: 'test-secret-key',
    stop: async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Ready once the bucket made at start answers a listing. */
async function untilBucket(endpoint: string, bucket: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${endpoint}/${bucket}?list-type=2`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`gofakes3 did not answer for bucket ${bucket} at ${endpoint} within ${timeoutMs} ms`);
}
