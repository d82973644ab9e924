import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { createFirstAdmin, TestUser } from '../support/auth';
import { pollUntil } from '../support/deadline';
import { HttpClient } from '../support/http';
import { startInstances, type Instances } from '../support/instances';
import type { ServiceProcess } from '../support/service-process';
import { WebhookReceiver } from '../support/webhook-receiver';
import { ABANDONED } from '../../src/webhooks/webhook-deliveries.repository';
import { ENABLED_ENDPOINTS_TTL_MS } from '../../src/webhooks/webhook-endpoints.repository';

jest.setTimeout(180_000);

const INSTANCES = 3;
const EVENTS = 80;
const TIMEOUT_MS = 1_000;
/** Close to the timeout: an attempt is under way for most of its claim, and some time out. */
const RECEIVER_MS = 800;
/**
 * One endpoint is enough: every instance sends the first attempts of its own requests' events while
 * the others' polls look for due ones, and the attempts that time out are retried by whichever
 * instance's poll claims them first.
 */
const ENDPOINTS = 1;

interface Attempt {
  attempt: number;
  status: string;
  responseStatus: number | null;
  error: string | null;
  createdAt: string;
}
interface Delivery {
  id: string;
  eventId: string;
  attempt: number;
  status: string;
  attempts: Attempt[];
}

/** The pid of the process whose TCP socket has this local port (Linux: /proc). */
function processWithLocalPort(pids: number[], port: number): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (parseInt(fields[1].split(':')[1], 16) === port) inodes.add(fields[9]);
    }
  }
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' });
        return inodes.has(target.replace(/^socket:\[(\d+)\]$/, '$1'));
      });
    } catch {
      return false;
    }
  });
}

/** Instances on one fresh database, a receiver, and an owner; started before the describe's tests, stopped after. */
function cluster(name: string, timeoutMs: number, envOf?: (index: number) => Record<string, string>) {
  const running = { receiver: new WebhookReceiver() } as {
    receiver: WebhookReceiver;
    instances: Instances;
    services: ServiceProcess[];
    http: HttpClient;
    owner: TestUser;
  };

  beforeAll(async () => {
    await running.receiver.start();
    running.instances = await startInstances(
      INSTANCES,
      name,
      {
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1,1,1,1,1',
        WEBHOOK_TIMEOUT_MS: String(timeoutMs),
      },
      envOf,
    );
    running.services = running.instances.services;
    running.http = running.instances.http;
    running.owner = await createFirstAdmin(running.http);
  });

  afterAll(async () => {
    await running.instances.stop();
    await running.receiver.stop();
  });

  const as = () => ({ token: running.owner.token });
  async function endpoint(path: string): Promise<{ id: string; secret: string }> {
    const res = await running.http.post(
      '/v1/webhook-endpoints',
      { url: `${running.receiver.base}${path}`, enabledEvents: ['customer.created'] },
      as(),
    );
    expect(res.status).toBe(201);
    // The other instances' fan-out sees a new endpoint within this time, as docs/events-and-webhooks.md promises.
    await sleep(ENABLED_ENDPOINTS_TTL_MS);
    return res.body.data;
  }
  const deliveriesOf = async (client: HttpClient, endpointId: string): Promise<Delivery[]> =>
    (await client.get(`/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`, as())).body.data as Delivery[];
  return { running, as, endpoint, deliveriesOf };
}

describe(`webhook deliveries from ${INSTANCES} instances on one database, to a receiver taking ${RECEIVER_MS} ms with a ${TIMEOUT_MS} ms timeout`, () => {
  const { running, as, endpoint, deliveriesOf } = cluster('multi_hooks', TIMEOUT_MS);

  it(`delivers ${EVENTS} events made through every instance to ${ENDPOINTS} endpoint, never two attempts of one at once, every attempt numbered and kept`, async () => {
    // Answers close to the timeout keep attempts under way long, and some time out and are retried.
    const { receiver, http } = running;
    const paths = Array.from({ length: ENDPOINTS }, (_, i) => `/slow-${i}`);
    for (const path of paths)
      receiver.answer(path, (response) => setTimeout(() => response.writeHead(200).end('ok'), RECEIVER_MS));
    const endpoints: { path: string; id: string; secret: string }[] = [];
    for (const path of paths) endpoints.push({ path, ...(await endpoint(path)) });
    const created = await Promise.all(
      Array.from({ length: EVENTS }, async (_, i) => {
        const res = await http.post('/v1/customers', { email: `slow-${i}@example.com` }, as());
        expect(res.status).toBe(201);
        return res.body.data.id as string;
      }),
    );
    const settled = await pollUntil(async () => {
      for (const { id } of endpoints) {
        const deliveries = await deliveriesOf(http, id);
        if (deliveries.length < EVENTS || deliveries.some((delivery) => delivery.status !== 'succeeded')) return false;
      }
      return true;
    }, 150_000);
    expect(settled).toBe(true);
    expect(receiver.concurrent).toEqual([]);

    for (const { path, id, secret } of endpoints) {
      const customers = new Set(
        receiver.at(path).map((request) => {
          const event = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
            data: { object: { id: string } };
          };
          return event.data.object.id;
        }),
      );
      expect([...customers].sort()).toEqual([...created].sort());
      const sentOf = new Map<string, number>();
      for (const request of receiver.at(path))
        sentOf.set(String(request.headers['webhook-id']), (sentOf.get(String(request.headers['webhook-id'])) ?? 0) + 1);
      for (const delivery of await deliveriesOf(http, id)) {
        // Numbered 1, 2, ... newest first, each once; only the last succeeded, and none is left open.
        expect(delivery.attempts.map((attempt) => attempt.attempt)).toEqual(
          Array.from({ length: delivery.attempt }, (_, i) => delivery.attempt - i),
        );
        expect(delivery.attempts.map((attempt) => attempt.status)).toEqual([
          'succeeded',
          ...Array<string>(delivery.attempt - 1).fill('failed'),
        ]);
        expect(delivery.attempts[0].responseStatus).toBe(200);
        // Every attempt recorded was sent once, and every request the receiver got is a recorded attempt.
        expect({ eventId: delivery.eventId, sent: sentOf.get(delivery.eventId) }).toEqual({
          eventId: delivery.eventId,
          sent: delivery.attempt,
        });
      }
    }
  });
});

describe(`webhook deliveries from ${INSTANCES} instances when one is killed, with a ${TIMEOUT_MS} ms timeout`, () => {
  const { running, as, endpoint, deliveriesOf } = cluster('multi_hooks_killed', TIMEOUT_MS);

  it('takes over an attempt whose instance was killed in the middle of it, and delivers it', async () => {
    const { receiver, services, http } = running;
    const alive = () =>
      services.filter((service) => service.child.exitCode === null && service.child.signalCode === null);
    let killed: { pid: number; service: ServiceProcess } | undefined;
    receiver.answer('/killed', (response, request) => {
      if (receiver.at('/killed').length > 1) return void response.writeHead(200).end('ok');
      // The first attempt's sender is killed the moment its request is here, well within the
      // timeout, and the request is left hanging: no outcome of it can be recorded.
      const pid = processWithLocalPort(
        alive().map((service) => service.child.pid!),
        request.remotePort,
      );
      const service = alive().find((candidate) => candidate.child.pid === pid);
      if (pid === undefined || !service) return;
      service.child.kill('SIGKILL');
      killed = { pid, service };
    });
    const { secret } = await endpoint('/killed');
    // The instance that records the event sends its first attempt, which can arrive before the
    // request's own answer: killed, that instance may never answer it.
    await http.post('/v1/customers', { email: 'killed@example.com' }, as()).catch(() => undefined);
    const [first] = await receiver.waitFor('/killed', 1, 20_000);
    expect(killed).toBeDefined();
    await killed!.service.exited;

    // Its claim outlives it by the timeout and a margin; another instance then makes the next attempt.
    const [, retried] = await receiver.waitFor('/killed', 2, TIMEOUT_MS + 20_000);
    expect(retried.headers['webhook-id']).toBe(first.headers['webhook-id']);
    new Webhook(secret).verify(retried.body, retried.headers as Record<string, string>);
    expect(processWithLocalPort([killed!.pid], retried.remotePort)).toBeUndefined();
    const survivor = new HttpClient(alive()[0].baseUrl);
    const endpoints = (await survivor.get('/v1/webhook-endpoints', as())).body.data as { id: string; url: string }[];
    const hook = endpoints.find((candidate) => candidate.url.endsWith('/killed'))!;
    const ok = await pollUntil(async () => (await deliveriesOf(survivor, hook.id))[0]?.status === 'succeeded', 10_000);
    expect(ok).toBe(true);
    // The killed instance's attempt is kept, recorded as abandoned; the one that took over is the next.
    const [delivery] = await deliveriesOf(survivor, hook.id);
    expect(delivery.attempts).toMatchObject([
      { attempt: 2, status: 'succeeded', responseStatus: 200 },
      { attempt: 1, status: 'failed', responseStatus: null, error: ABANDONED },
    ]);
    expect(receiver.at('/killed')).toHaveLength(2);
  });
});

/** Deliveries per event: more than a fan-out's lanes (8), so some wait for a lane before their claim. */
const WIDE_ENDPOINTS = 12;
const WIDE_EVENTS = 10;
/** The first attempt of each delivery: answered after the timeout, so it fails and is retried. */
const SLOWER_THAN_TIMEOUT_MS = 1_500;
/** How far ahead the skewed instance's wall clock is. */
const SKEW_MS = 3_000;

describe(`webhook deliveries from ${INSTANCES} instances, one clock ${SKEW_MS} ms ahead, ${WIDE_ENDPOINTS} deliveries an event, a receiver slower than the ${TIMEOUT_MS} ms timeout`, () => {
  // The last instance runs with its wall clock (Date.now(), new Date()) shifted, its timers not.
  const skewed = INSTANCES - 1;
  const { running, as, endpoint, deliveriesOf } = cluster(
    'multi_hooks_skew',
    TIMEOUT_MS,
    (index): Record<string, string> =>
      index === skewed
        ? { NODE_OPTIONS: `--require ${join(__dirname, '../support/clock-skew.cjs')}`, CLOCK_SKEW_MS: String(SKEW_MS) }
        : {},
  );

  it('retries every delivery, never sends two attempts of one at once, sends each attempt once, and only from live instances', async () => {
    const { receiver, http, services } = running;
    const pids = services.map((service) => service.child.pid!);
    const senders: (number | undefined)[] = [];
    const paths = Array.from({ length: WIDE_ENDPOINTS }, (_, i) => `/wide-${i}`);
    for (const path of paths) {
      receiver.answer(path, (response, request) => {
        senders.push(processWithLocalPort(pids, request.remotePort));
        const first =
          receiver.at(path).filter((other) => other.headers['webhook-id'] === request.headers['webhook-id']).length ===
          1;
        if (first) setTimeout(() => response.writeHead(200).end('late'), SLOWER_THAN_TIMEOUT_MS);
        else response.writeHead(200).end('ok');
      });
    }
    const endpoints: { path: string; id: string }[] = [];
    for (const path of paths) endpoints.push({ path, ...(await endpoint(path)) });
    await Promise.all(
      Array.from({ length: WIDE_EVENTS }, async (_, i) => {
        const res = await http.post('/v1/customers', { email: `wide-${i}@example.com` }, as());
        expect(res.status).toBe(201);
      }),
    );
    const settled = await pollUntil(async () => {
      for (const { id } of endpoints) {
        const deliveries = await deliveriesOf(http, id);
        if (deliveries.length < WIDE_EVENTS || deliveries.some((delivery) => delivery.status !== 'succeeded'))
          return false;
      }
      return true;
    }, 150_000);
    expect(settled).toBe(true);
    // No two requests of one delivery were ever open at the receiver at once.
    expect(receiver.concurrent).toEqual([]);
    // Every request came from one of the instances, all of them alive, the skewed one among them;
    // any attempt taken over from another sender was made by such a live instance too.
    expect(senders.filter((pid) => pid === undefined)).toEqual([]);
    expect(services.every((service) => service.child.exitCode === null && service.child.signalCode === null)).toBe(
      true,
    );
    expect(senders).toContain(pids[skewed]);

    for (const { path, id } of endpoints) {
      const sent = new Map<string, number>();
      for (const request of receiver.at(path))
        sent.set(String(request.headers['webhook-id']), (sent.get(String(request.headers['webhook-id'])) ?? 0) + 1);
      for (const delivery of await deliveriesOf(http, id)) {
        // Retried: the first attempt timed out; every attempt is numbered, kept, and was sent exactly once.
        expect(delivery.attempt).toBeGreaterThanOrEqual(2);
        expect(delivery.attempts.map((attempt) => attempt.attempt)).toEqual(
          Array.from({ length: delivery.attempt }, (_, i) => delivery.attempt - i),
        );
        expect(delivery.attempts[0]).toMatchObject({ status: 'succeeded', responseStatus: 200 });
        expect({ eventId: delivery.eventId, sent: sent.get(delivery.eventId) }).toEqual({
          eventId: delivery.eventId,
          sent: delivery.attempt,
        });
      }
    }
  });
});
