import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RESPONSE_BODY_LIMIT, WebhookSender } from './webhook-sender';

describe('WebhookSender', () => {
  let server: Server;
  let base: string;
  const received: { url?: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const handlers: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
    '/ok': (_request, response) => response.writeHead(204).end(),
    '/fails': (_request, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end('broken'),
    '/moved': (_request, response) => response.writeHead(302, { location: '/ok' }).end(),
    '/slow': (_request, response) => {
      const answer = setTimeout(() => response.writeHead(200).end(), 5_000);
      response.on('close', () => clearTimeout(answer));
    },
    '/large': (_request, response) => response.writeHead(200).end('x'.repeat(10 * 1024)),
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ url: request.url, headers: request.headers, body });
        handlers[request.url ?? '']?.(request, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    sender.close();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => (received.length = 0));

  // Far above what these answers take, even on a loaded machine: only the timeout's own test waits for one.
  const sender = new WebhookSender({ timeoutMs: 10_000, allowPrivate: true });

  it('keeps the connection open between attempts to the same endpoint', async () => {
    const connections: unknown[] = [];
    const count = (socket: unknown) => connections.push(socket);
    server.on('connection', count);
    try {
      const fresh = new WebhookSender({ timeoutMs: 1_000, allowPrivate: true });
      for (let attempt = 0; attempt < 3; attempt += 1)
        expect(await fresh.send(`${base}/ok`, '{}', {})).toMatchObject({ ok: true });
      fresh.close();
      expect(received).toHaveLength(3);
      expect(connections).toHaveLength(1);
    } finally {
      server.off('connection', count);
    }
  });

  it('POSTs the body as JSON with the headers given; a 2xx succeeds', async () => {
    const outcome = await sender.send(`${base}/ok`, '{"id":"evt_1"}', { 'webhook-id': 'evt_1' });
    expect(outcome).toMatchObject({ ok: true, responseStatus: 204, error: null });
    expect(received[0]).toMatchObject({
      url: '/ok',
      body: '{"id":"evt_1"}',
      headers: { 'webhook-id': 'evt_1', 'content-type': 'application/json' },
    });
  });

  it('a 500 fails with its status and body', async () => {
    expect(await sender.send(`${base}/fails`, '{}', {})).toMatchObject({
      ok: false,
      responseStatus: 500,
      responseBody: 'broken',
      error: 'the endpoint answered 500',
    });
  });

  it('does not follow a redirect', async () => {
    expect(await sender.send(`${base}/moved`, '{}', {})).toMatchObject({ ok: false, responseStatus: 302 });
    expect(received.map((request) => request.url)).toEqual(['/moved']);
  });

  it('gives up after the timeout, without waiting for the answer', async () => {
    const impatient = new WebhookSender({ timeoutMs: 300, allowPrivate: true });
    try {
      const outcome = await impatient.send(`${base}/slow`, '{}', {});
      expect(outcome).toMatchObject({ ok: false, responseStatus: null, error: 'timed out after 300 ms' });
      expect(outcome.durationMs).toBeLessThan(5_000);
    } finally {
      impatient.close();
    }
  });

  it('keeps 1 KiB of a large body', async () => {
    const outcome = await sender.send(`${base}/large`, '{}', {});
    expect(outcome.ok).toBe(true);
    expect(outcome.responseBody).toHaveLength(RESPONSE_BODY_LIMIT);
  });

  it('never dials a loopback or private address unless allowed, by literal or by name', async () => {
    const strict = new WebhookSender({ timeoutMs: 1_000, allowPrivate: false });
    expect(await strict.send(`${base}/ok`, '{}', {})).toMatchObject({
      ok: false,
      error: 'destination address 127.0.0.1 is not allowed',
    });
    const port = new URL(base).port;
    expect(await strict.send(`http://localhost:${port}/ok`, '{}', {})).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^destination address .+ is not allowed$/),
    });
    expect(received).toEqual([]);
  });

  it('turns a network failure into an outcome', async () => {
    const outcome = await sender.send('http://127.0.0.1:1/ok', '{}', {});
    expect(outcome).toMatchObject({ ok: false, responseStatus: null });
    expect(outcome.error).toBeTruthy();
  });
});
