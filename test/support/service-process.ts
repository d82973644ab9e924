import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { freePort } from '../../src/database/embedded-database';

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  /** What the process wrote to stdout and stderr, for failure messages. */
  output(): string;
  /** Resolves with the exit code (or the signal that ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs the built service (`dist/main.js`, made by `nest build`) as its own process. */
export async function spawnBuiltService(env: Record<string, string>): Promise<ServiceProcess> {
  const main = join(__dirname, '..', '..', 'dist', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run "npm run build" first (npm test does it)`);
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    // The run's Mailpit (global-setup.ts): the helpers read signup's verification mail there, and production requires SMTP_URL.
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...(process.env.SMTP_URL ? { SMTP_URL: process.env.SMTP_URL } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return { child, baseUrl: `http://127.0.0.1:${port}`, output: () => output, exited };
}

export interface TrackedResponse {
  status: number;
  body: string;
}

export interface TrackedRequest {
  /** Resolves once the whole request has been written to its own connection. */
  sent: Promise<void>;
  response: Promise<TrackedResponse>;
  done: boolean;
}

/**
 * A POST with a JSON body on a connection of its own (no keep-alive pool), which tells when the
 * request has left the client, so a test can act while the server is still working on it.
 */
export function trackedPost(url: string, body: unknown): TrackedRequest {
  const payload = JSON.stringify(body);
  let markSent: () => void = () => undefined;
  let failSent: (error: Error) => void = () => undefined;
  const sent = new Promise<void>((done, fail) => {
    markSent = done;
    failSent = fail;
  });
  const tracked: TrackedRequest = { sent, response: Promise.resolve({ status: 0, body: '' }), done: false };
  tracked.response = new Promise<TrackedResponse>((done, fail) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    });
    req.on('error', (error) => {
      failSent(error);
      fail(error);
    });
    req.on('finish', () => markSent());
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        tracked.done = true;
        done({ status: res.statusCode ?? 0, body: text });
      });
      res.on('error', fail);
    });
    req.end(payload);
  });
  // Failures are reported through `response`; this keeps an early failure of `sent` from going unhandled.
  sent.catch(() => undefined);
  return tracked;
}
