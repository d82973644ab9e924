import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/database/embedded-database';

/** A request line that went through the proxy, and when. */
export interface ProxiedRequest {
  line: string;
  sentAt: number;
}

/**
 * A TCP proxy on the loopback in front of an HTTP server (the S3 server), sending answers back at
 * `bytesPerSecond` per connection: reading an object through it takes at least as long as its size
 * says, whatever the machine's speed. Requests pass at full speed; each request line is noted.
 */
export interface SlowProxy {
  endpoint: string;
  requests: ProxiedRequest[];
  stop(): Promise<void>;
}

export async function startSlowProxy(target: string, bytesPerSecond: number): Promise<SlowProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const port = await freePort();
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(targetPort), hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      for (const [line] of chunk.toString('latin1').matchAll(/^(GET|PUT|POST|HEAD|DELETE) \S+/gm))
        requests.push({ line, sentAt: Date.now() });
      upstream.write(chunk);
    });
    // Downstream paced: a slice at a time, each after the time its size takes at the rate.
    let paced = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      upstream.pause();
      paced = paced.then(async () => {
        const slice = Math.max(Math.floor(bytesPerSecond / 20), 1);
        for (let at = 0; at < chunk.length; at += slice) {
          const part = chunk.subarray(at, at + slice);
          await sleep((part.length / bytesPerSecond) * 1000);
          if (client.destroyed) return;
          client.write(part);
        }
        upstream.resume();
      });
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', () => void paced.then(close));
  });
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
