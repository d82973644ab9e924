import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The sender's side of the connection, to find which process sent it. */
  remotePort: number;
}

/**
 * A webhook receiver on loopback, as an integrator runs one: records every request; each path
 * answers as told (200 "ok" by default). Notes any delivery (`webhook-id`) that arrives while an
 * attempt of the same one to the same path is still open: two attempts at once.
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  /** Open requests, by path and webhook-id. */
  readonly open = new Map<string, number>();
  readonly concurrent: string[] = [];
  base = '';
  private server!: Server;
  private readonly answers = new Map<string, (response: ServerResponse, request: ReceivedDelivery) => void>();

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = '';
      const path = request.url ?? '';
      const key = `${path} ${String(request.headers['webhook-id'])}`;
      const openNow = (this.open.get(key) ?? 0) + 1;
      this.open.set(key, openNow);
      if (openNow > 1) this.concurrent.push(key);
      response.on('close', () => this.open.set(key, (this.open.get(key) ?? 1) - 1));
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const received = { path, headers: request.headers, body, remotePort: request.socket.remotePort ?? 0 };
        this.received.push(received);
        const answer = this.answers.get(path) ?? ((out: ServerResponse) => out.writeHead(200).end('ok'));
        answer(response, received);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** How `path` answers from now on; returns its URL. */
  answer(path: string, how: (response: ServerResponse, request: ReceivedDelivery) => void): string {
    this.answers.set(path, how);
    return `${this.base}${path}`;
  }

  at(path: string): ReceivedDelivery[] {
    return this.received.filter((request) => request.path === path);
  }

  isOpen(path: string): boolean {
    return [...this.open.entries()].some(([key, count]) => key.startsWith(`${path} `) && count > 0);
  }

  async waitFor(path: string, count: number, timeoutMs = 10_000): Promise<ReceivedDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path} got ${this.at(path).length} of ${count} deliveries`);
      await sleep(25);
    }
    return this.at(path);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
