import { randomBytes } from 'node:crypto';
import { pollUntil } from './deadline';
import { HttpClient, type HttpResponse, type RequestOptions } from './http';
import { spawnBuiltService, type ServiceProcess } from './service-process';
import { TEST_CARD_FINGERPRINT_KEY, TEST_FIELD_ENCRYPTION_KEY, TEST_JWT_SECRET } from './test-app';
import { dropTestDatabase, testDatabaseUri } from './test-database';

/** Spreads requests over several base URLs in turn, as a round-robin load balancer does. */
export class RoundRobinClient extends HttpClient {
  private next = 0;
  constructor(private readonly clients: HttpClient[]) {
    super(clients[0].baseUrl);
  }
  override request<T = any>(
    method: string,
    path: string,
    body: unknown,
    options: RequestOptions = {},
  ): Promise<HttpResponse<T>> {
    return this.clients[this.next++ % this.clients.length].request<T>(method, path, body, options);
  }
}

/** Several built instances of the service on one throwaway database. */
export interface Instances {
  /** The database they share, for checking what is stored. */
  mongodbUri: string;
  services: ServiceProcess[];
  clients: HttpClient[];
  /** Every instance in turn. */
  http: RoundRobinClient;
  /** Stops the instances still running and drops the database. */
  stop(): Promise<void>;
}

/**
 * Starts `count` instances of the built service on one new database, with the test secrets and
 * `env` on top (and `envOf(i)` on top of that for instance i), and waits until each answers /health.
 */
export async function startInstances(
  count: number,
  name: string,
  env: Record<string, string> = {},
  envOf: (index: number) => Record<string, string> = () => ({}),
): Promise<Instances> {
  const mongodbUri = testDatabaseUri(`${name}_${randomBytes(6).toString('hex')}`);
  const services: ServiceProcess[] = [];
  for (let i = 0; i < count; i++) {
    services.push(
      await spawnBuiltService({
        NODE_ENV: 'test',
        MONGODB_URI: mongodbUri,
        JWT_SECRET: TEST_JWT_SECRET,
        CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
        FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
        LOG_LEVEL: 'silent',
        BCRYPT_ROUNDS: '4',
        SIGNUP_MAX_PER_CLIENT: '100000',
        RATE_LIMIT_PER_SECOND: '100000',
        ...env,
        ...envOf(i),
      }),
    );
  }
  const clients = services.map((service) => new HttpClient(service.baseUrl));
  for (const [i, client] of clients.entries()) {
    const up = await pollUntil(async () => (await client.get('/health')).status === 200, 60_000);
    if (!up) throw new Error(`instance ${i} did not become healthy:\n${services[i].output()}`);
  }
  return {
    mongodbUri,
    services,
    clients,
    http: new RoundRobinClient(clients),
    stop: async () => {
      await Promise.all(
        services.map(async (service) => {
          if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
          await service.exited;
        }),
      );
      await dropTestDatabase(mongodbUri);
    },
  };
}
