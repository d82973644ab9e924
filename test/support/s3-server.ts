import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/database/embedded-database';

/**
 * A throwaway MinIO (built with Go once: scripts/install-minio.sh), the S3 server of the compose
 * stack, keeping its objects under a temporary folder, with one bucket made at start. Like S3 it
 * checks every request's signature against its credentials (random for each server) and refuses
 * anonymous requests, enforces the 5 MiB minimum of a multipart upload's parts but the last, and
 * keeps unfinished multipart uploads on disk.
 */
export interface S3Server {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

/** The binary: MINIO_BIN, else $(go env GOPATH)/bin/minio, built there once when missing. */
function minioBinary(): string {
  if (process.env.MINIO_BIN) return process.env.MINIO_BIN;
  const binary = join(execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim(), 'bin', 'minio');
  if (!existsSync(binary)) {
    execFileSync('bash', [join(__dirname, '../../scripts/install-minio.sh'), binary], {
      stdio: ['ignore', process.stderr, process.stderr],
    });
  }
  return binary;
}

export async function startS3Server(bucket = 'test-assets'): Promise<S3Server> {
  const [port, consolePort] = [await freePort(), await freePort()];
  const folder = mkdtempSync(join(tmpdir(), 's3-server-'));
  const accessKeyId = `test-${randomBytes(4).toString('hex')}`;
  const secretAccessKey = randomBytes(18).toString('base64url');
  let output = '';
  const child: ChildProcess = spawn(
    minioBinary(),
    ['server', folder, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: folder,
        MINIO_ROOT_USER: accessKeyId,
        MINIO_ROOT_PASSWORD: secretAccessKey,
        MINIO_BROWSER: 'off',
        MINIO_UPDATE: 'off',
        MINIO_CALLHOME_ENABLE: 'off',
      },
    },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const failed = new Promise<never>((_, fail) => {
    child.once('error', (error) => fail(new Error(`minio did not start (${error.message})`)));
    child.once('exit', (code) => fail(new Error(`minio exited (${code}) before it was ready: ${output}`)));
  });
  const region = 'us-east-1';
  await Promise.race([failed, untilLive(endpoint)]);
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    region,
    bucket,
    accessKeyId,
    secretAccessKey,
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

/** Ready once its liveness probe answers. */
async function untilLive(endpoint: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${endpoint}/minio/health/live`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`minio did not answer at ${endpoint} within ${timeoutMs} ms`);
}
