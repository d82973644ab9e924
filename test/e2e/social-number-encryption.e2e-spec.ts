import { Types } from 'mongoose';
import { spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FieldDecryptionError, FieldEncryption, parseEncryptionKeys } from '../../src/common/crypto/field-encryption';
import { SocialNumberReencryption } from '../../src/customers/social-number-reencryption';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createTestApp, TEST_FIELD_ENCRYPTION_KEY, TestApp } from '../support/test-app';
import { testDatabaseUri } from '../support/test-database';

const crypto = new FieldEncryption(parseEncryptionKeys(TEST_FIELD_ENCRYPTION_KEY));
const bound = (customer: unknown) => ({ record: String(customer), field: 'SocialNumber' });

/** A social number as builds before record binding stored it: `enc:v1`, only the field's name bound in. */
function oldForm(plaintext: string): string {
  const [{ id, key }] = parseEncryptionKeys(TEST_FIELD_ENCRYPTION_KEY);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from('SocialNumber', 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'enc',
    'v1',
    id,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join(':');
}

describe('social numbers are bound to their customer', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;

  const customers = () => t.db.collection('customers');
  const storedOf = async (id: string) =>
    (await customers().findOne({ _id: new Types.ObjectId(id) }))?.SocialNumber as string;
  async function createCustomer(user: TestUser, body: Record<string, unknown>): Promise<string> {
    const res = await t.http.post('/v1/customers', { email: 'someone@example.com', ...body }, { token: user.token });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createFirstAdmin(t.http);
    other = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  it('a new customer and an update store the current form, bound to the id the API answers', async () => {
    const id = await createCustomer(owner, { SocialNumber: '078-05-1120' });
    expect(await storedOf(id)).toMatch(/^enc:v2:t1:/);
    expect(crypto.decrypt(await storedOf(id), bound(id))).toBe('078-05-1120');

    const updated = await t.http.post(
      `/v1/customers/${id.toUpperCase()}`,
      { SocialNumber: '219-09-9999' },
      { token: owner.token },
    );
    expect(updated.status).toBe(200);
    expect(crypto.decrypt(await storedOf(id), bound(id))).toBe('219-09-9999');
  });

  it("a ciphertext copied into another customer's document does not decrypt there; the API answers that customer as always (the number is write-only), and reencrypt leaves it and names it", async () => {
    const victim = await createCustomer(owner, { SocialNumber: '078-05-1120' });
    const sameProject = await createCustomer(owner, { email: 'copy@example.com' });
    const otherTenant = await createCustomer(other, { email: 'mallory@example.com' });
    const copied = await storedOf(victim);
    for (const id of [sameProject, otherTenant])
      await customers().updateOne({ _id: new Types.ObjectId(id) }, { $set: { SocialNumber: copied } });

    for (const id of [sameProject, otherTenant]) {
      expect(() => crypto.decrypt(copied, bound(id))).toThrow(FieldDecryptionError);
    }
    expect(crypto.decrypt(copied, bound(victim))).toBe('078-05-1120');

    // The API never shows the number, so an undecryptable one changes nothing in its answers.
    for (const [id, user] of [
      [sameProject, owner],
      [otherTenant, other],
    ] as const) {
      const read = await t.http.get(`/v1/customers/${id}`, { token: user.token });
      expect(read.status).toBe(200);
      expect(read.text).not.toContain('SocialNumber');
      expect(read.text).not.toContain('078-05-1120');
      expect(
        (await t.http.post(`/v1/customers/${id}`, { firstName: 'Still', Taxable: true }, { token: user.token })).status,
      ).toBe(200);
      expect((await t.http.get('/v1/customers', { token: user.token })).status).toBe(200);
    }

    const report = await t.app.get(SocialNumberReencryption).run();
    expect(report.undecryptable.sort()).toEqual([sameProject, otherTenant].sort());
    for (const id of [sameProject, otherTenant]) expect(await storedOf(id)).toBe(copied);
    expect(await storedOf(victim)).toBe(copied);
  });
});

describe('npm run reencrypt upgrades the older form', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  it('rewrites an older-form value in the current form bound to its customer, and a second run changes nothing', async () => {
    const customers = t.db.collection('customers');
    const created = await t.http.post('/v1/customers', { email: 'old@example.com' }, { token: owner.token });
    expect(created.status).toBe(201);
    const id = new Types.ObjectId(created.body.data.id as string);
    const old = oldForm('078-05-1120');
    await customers.updateOne({ _id: id }, { $set: { SocialNumber: old } });
    // Still readable as it is: the form says what was bound in.
    expect(crypto.decrypt(old, bound(id))).toBe('078-05-1120');

    const job = t.app.get(SocialNumberReencryption);
    expect(await job.run()).toEqual({ encrypted: 0, rotated: 0, upgraded: 1, current: 0, undecryptable: [] });
    const upgraded = (await customers.findOne({ _id: id }))?.SocialNumber as string;
    expect(upgraded).toMatch(/^enc:v2:t1:/);
    expect(crypto.decrypt(upgraded, bound(id))).toBe('078-05-1120');
    expect(() => crypto.decrypt(upgraded, bound(new Types.ObjectId()))).toThrow(FieldDecryptionError);

    expect(await job.run()).toEqual({ encrypted: 0, rotated: 0, upgraded: 0, current: 1, undecryptable: [] });
    expect((await customers.findOne({ _id: id }))?.SocialNumber).toBe(upgraded);
  });

  it('as the built command: its context holds customers alone, and it runs to its end', async () => {
    const command = join(__dirname, '..', '..', 'dist', 'migrations', 'reencrypt.js');
    if (!existsSync(command)) throw new Error(`${command} is missing: run "npm run build" first (npm test does it)`);
    const env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      MONGODB_URI: testDatabaseUri(t.db.name),
      FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
    };
    const { code, output } = await new Promise<{ code: number | null; output: string }>((done, fail) => {
      const child = spawn(process.execPath, [command], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', fail);
      child.on('exit', (code) => done({ code, output }));
    });
    expect(output).toContain(
      'Social numbers: 0 encrypted from plain text, 0 moved to the current key, 0 bound to their customer, 1 already current',
    );
    expect(code).toBe(0);
  }, 120_000);
});

describe('ACCEPT_LEGACY_CIPHERTEXT: the older form is refused once reencrypt has run, or when set to false', () => {
  const started: TestApp[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const app = await createTestApp(env);
    started.push(app);
    return app;
  };
  /** Another instance on the same database; closed without dropping it. */
  const restart = async (on: TestApp, env: Record<string, string> = {}) => {
    const app = await createTestApp({ MONGODB_URI: testDatabaseUri(on.db.name), ...env });
    const encryption = app.app.get(FieldEncryption, { strict: false });
    await app.app.close();
    return encryption;
  };
  const binding = bound(new Types.ObjectId());
  const old = oldForm('078-05-1120');
  const current = crypto.encrypt('078-05-1120', binding);
  const REFUSED = /older form bound to the field only \(enc:v1\), refused/;

  afterAll(async () => {
    for (const app of started.reverse()) await app.close();
  });

  it('unset: read until reencrypt has run to its end once, which it records; refused from the next start on', async () => {
    const t = await start();
    expect(t.app.get(FieldEncryption, { strict: false }).decrypt(old, binding)).toBe('078-05-1120');
    expect(await t.db.collection('settings').countDocuments()).toBe(0);

    await t.app.get(SocialNumberReencryption).run();
    expect(await t.db.collection<{ _id: string }>('settings').findOne({ _id: 'reencrypt' })).toMatchObject({
      value: { completedAt: expect.any(Date) },
    });

    const after = await restart(t);
    expect(() => after.decrypt(old, binding)).toThrow(FieldDecryptionError);
    expect(() => after.decrypt(old, binding)).toThrow(REFUSED);
    expect(after.decrypt(current, binding)).toBe('078-05-1120');
    // An operator may still choose to read them.
    expect((await restart(t, { ACCEPT_LEGACY_CIPHERTEXT: 'true' })).decrypt(old, binding)).toBe('078-05-1120');
  });

  it('false: refused from the start, while reencrypt still reads and rewrites them', async () => {
    const t = await start({ ACCEPT_LEGACY_CIPHERTEXT: 'false' });
    expect(() => t.app.get(FieldEncryption, { strict: false }).decrypt(old, binding)).toThrow(REFUSED);
    const owner = await createFirstAdmin(t.http);
    const created = await t.http.post('/v1/customers', { email: 'old@example.com' }, { token: owner.token });
    const id = new Types.ObjectId(created.body.data.id as string);
    await t.db.collection('customers').updateOne({ _id: id }, { $set: { SocialNumber: oldForm('219-09-9999') } });
    expect(await t.app.get(SocialNumberReencryption).run()).toEqual({
      encrypted: 0,
      rotated: 0,
      upgraded: 1,
      current: 0,
      undecryptable: [],
    });
    const upgraded = (await t.db.collection('customers').findOne({ _id: id }))?.SocialNumber as string;
    expect(t.app.get(FieldEncryption, { strict: false }).decrypt(upgraded, bound(id))).toBe('219-09-9999');
  });
});
