import { Types } from 'mongoose';
import { createCipheriv, randomBytes } from 'node:crypto';
import { FieldDecryptionError, FieldEncryption, parseEncryptionKeys } from '../../src/common/crypto/field-encryption';
import { SocialNumberReencryption } from '../../src/customers/social-number-reencryption';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createTestApp, TEST_FIELD_ENCRYPTION_KEY, TestApp } from '../support/test-app';

const crypto = new FieldEncryption(parseEncryptionKeys(TEST_FIELD_ENCRYPTION_KEY));
const bound = (customer: unknown) => ({ record: String(customer), field: 'SocialNumber' });

/** A social number as builds before record binding stored it: `enc:v1`, only the field's name bound in. */
function oldForm(plaintext: string): string {
  const [{ id, key }] = parseEncryptionKeys(TEST_FIELD_ENCRYPTION_KEY);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from('SocialNumber', 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['enc', 'v1', id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
}

describe('social numbers are bound to their customer', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;

  const customers = () => t.db.collection('customers');
  const storedOf = async (id: string) => (await customers().findOne({ _id: new Types.ObjectId(id) }))?.SocialNumber as string;
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

    const updated = await t.http.post(`/v1/customers/${id.toUpperCase()}`, { SocialNumber: '219-09-9999' }, { token: owner.token });
    expect(updated.status).toBe(200);
    expect(crypto.decrypt(await storedOf(id), bound(id))).toBe('219-09-9999');
  });

  it("a ciphertext copied into another customer's document does not decrypt there; the API answers that customer as always (the number is write-only), and reencrypt leaves it and names it", async () => {
    const victim = await createCustomer(owner, { SocialNumber: '078-05-1120' });
    const sameProject = await createCustomer(owner, { email: 'copy@example.com' });
    const otherTenant = await createCustomer(other, { email: 'mallory@example.com' });
    const copied = await storedOf(victim);
    for (const id of [sameProject, otherTenant]) await customers().updateOne({ _id: new Types.ObjectId(id) }, { $set: { SocialNumber: copied } });

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
      expect((await t.http.post(`/v1/customers/${id}`, { firstName: 'Still', Taxable: true }, { token: user.token })).status).toBe(200);
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
});
