import { ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../src/database/embedded-database';

/** A throwaway redis-server (Debian's `redis-server`), in memory only, for the suites that share limits through it. */
export interface RedisServer {
  url: string;
  port: number;
  /** Stops it (SIGKILL: an outage, not a clean shutdown) and waits for the process to end. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** What redis-server wrote, for failure messages. */
  output(): string;
}

/** Starts a redis-server on a free port of 127.0.0.1 and waits until it answers PING. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let output = '';
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const failed = new Promise<never>((_, fail) => {
      child?.once('error', (error) =>
        fail(new Error(`redis-server did not start (${error.message}): install Debian's redis-server`)),
      );
    });
    await Promise.race([failed, untilPong(port)]);
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((done) => running.once('exit', done));
    running.kill('SIGKILL');
    await exited;
  };
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await stop();
      process.removeListener('exit', killOnExit);
    },
    restart: async () => {
      await stop();
      process.once('exit', killOnExit);
      await start();
    },
    output: () => output,
  };
}

async function untilPong(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const client = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // Not listening yet.
    } finally {
      client.disconnect();
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`redis-server did not answer on port ${port} within ${timeoutMs} ms`);
}
