import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { MongoClient } from 'mongodb';
import { signupBody } from '../support/auth';
import { pollUntil } from '../support/deadline';
import { HttpClient } from '../support/http';
import { MailServer } from '../support/mail-server';
import { ServiceProcess, spawnBuiltService } from '../support/service-process';
import { dropTestDatabase, testDatabaseUri } from '../support/test-database';
import { TEST_CARD_FINGERPRINT_KEY, TEST_FIELD_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../support/test-app';

jest.setTimeout(120_000);

/** A port on which nothing listens: taken, then closed. */
function refusedPort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/**
 * A mail is recorded before the answer of the request that causes it and sent from that record: the
 * built service killed between the change and the send (its SMTP server away), then started again
 * with SMTP back, sends it, once. Its text waits encrypted, and is dropped once sent.
 */
describe('mail: recorded with its change, sent after a crash', () => {
  const mongodbUri = testDatabaseUri(`mail_outbox_${randomBytes(6).toString('hex')}`);
  const mailpit = new MailServer();
  let service: ServiceProcess | undefined;
  let client: MongoClient;

  beforeAll(async () => {
    client = await new MongoClient(mongodbUri).connect();
  });

  afterAll(async () => {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    await client.close();
    await dropTestDatabase(mongodbUri);
  });

  async function start(smtpUrl: string): Promise<HttpClient> {
    service = await spawnBuiltService({
      NODE_ENV: 'production',
      MONGODB_URI: mongodbUri,
      JWT_SECRET: TEST_JWT_SECRET,
      CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
      FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
      SMTP_URL: smtpUrl,
    });
    const http = new HttpClient(service.baseUrl);
    const running = service;
    if (!(await pollUntil(async () => (await http.get('/health')).status === 200, 30_000)))
      throw new Error(`not healthy within 30 s:\n${running.output()}`);
    return http;
  }

  it('a password reset mail whose send failed is sent once by the next process, from its record', async () => {
    const http = await start(`smtp://127.0.0.1:${await refusedPort()}`);
    const body = signupBody();
    expect((await http.post('/api/v1/signup', body)).status).toBe(201);
    expect((await http.post('/api/v1/password-resets', { email: body.email })).status).toBe(202);

    const mails = client.db().collection('outgoing_mails');
    const reset = () => mails.findOne({ to: body.email, subject: 'Reset your password' });
    // Recorded before the answer; its first attempt failed, the SMTP server being away.
    // (A claimed attempt is counted before its send; its failure is recorded once the send gave up.)
    expect(await pollUntil(async () => Boolean((await reset())?.lastError), 20_000)).toBe(true);
    const waiting = await reset();
    expect(waiting).toMatchObject({ status: 'pending', sentAt: null });
    expect(waiting?.lastError).toBeTruthy();
    expect(waiting?.text).toMatch(/^enc:/);
    expect(waiting?.text).not.toContain('password-reset');

    service!.child.kill('SIGKILL');
    await service!.exited;
    expect((await mailpit.listTo(body.email)).filter((mail) => mail.subject === 'Reset your password')).toEqual([]);

    await start(process.env.SMTP_URL!);
    const sent = await mailpit.waitFor(body.email, /^Reset your password$/, 40_000);
    expect(sent.links.some((link) => link.includes('token='))).toBe(true);
    expect(await pollUntil(async () => (await reset())?.status === 'sent', 10_000)).toBe(true);
    const stored = await reset();
    expect(stored?.text).toBeUndefined();
    expect(stored?.sentAt).toBeInstanceOf(Date);
    // Once: a later poll finds nothing due.
    await new Promise((done) => setTimeout(done, 6_000));
    expect((await mailpit.listTo(body.email)).filter((mail) => mail.subject === 'Reset your password')).toHaveLength(1);
  });
});
