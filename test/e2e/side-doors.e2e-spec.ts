import { createFirstAdmin, TestUser } from '../support/auth';
import { expectError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

/** `depth` objects nested in one another, the innermost holding 1. */
function nested(depth: number): string {
  let json = '1';
  for (let level = 0; level < depth; level++) json = `{"a":${json}}`;
  return json;
}

/**
 * The paths beside the ones issue 48 named, tried from outside as an attacker would: each refusal a
 * clear 4xx with its code, never a 500.
 */
describe('side doors', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('malformed bodies', () => {
    it('a body nested thousands deep is a 400 body_too_deep on every JSON route, signed in or not', async () => {
      const login = await t.http.post('/api/v1/login', undefined, {
        raw: `{"email":"deep@example.com","password":"correct horse battery","x":${nested(5000)}}`,
      });
      expectError(login, 400, /nests too deeply/);
      expect(login.body.code).toBe('body_too_deep');
      const customer = await t.http.post('/v1/customers', undefined, {
        token: admin.token,
        raw: `{"email":"deep@example.com","address":${nested(5000)}}`,
      });
      expectError(customer, 400, /nests too deeply/);
      expect(customer.body.code).toBe('body_too_deep');
      // Just past the limit as well, not only where the stack gives out.
      const past = await t.http.post('/v1/customers', undefined, {
        token: admin.token,
        raw: `{"email":"deep@example.com","address":${nested(33)}}`,
      });
      expect(past.body.code).toBe('body_too_deep');
      expect(await t.db.collection('customers').countDocuments({ email: 'deep@example.com' })).toBe(0);
    });

    it('a body within the limit reaches the validation, which names the field', async () => {
      const res = await t.http.post('/v1/customers', undefined, {
        token: admin.token,
        raw: `{"email":"shallow@example.com","address":${nested(20)}}`,
      });
      expectError(res, 400);
      expect(res.body.code).toBeUndefined();
      expect(res.body.errors[0].field).toBe('address.a');
    });
  });
});
