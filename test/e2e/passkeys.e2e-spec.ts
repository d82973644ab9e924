import { Types } from 'mongoose';
import { createFirstAdmin, createUser } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import { MailServer } from '../support/mail-server';
import { addPasskey, SoftwareAuthenticator } from '../support/passkeys';
import { Browser, enableTotp, sessionCookie, signIn, totp } from '../support/sessions';
import { createTestApp, type TestApp } from '../support/test-app';

/** Passkeys through the API, with an authenticator in software (the browser project drives Chromium's virtual one). */
describe('passkeys', () => {
  let t: TestApp;
  const mail = new MailServer();

  beforeAll(async () => {
    t = await createTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  const options = async () => {
    const res = await t.http.post('/api/v1/sessions/passkey/options');
    expect(res.status).toBe(200);
    return res.body;
  };

  it('registration options: a discoverable credential for this user and relying party, verified user, the passkeys registered excluded', async () => {
    const user = await createFirstAdmin(t.http);
    const browser = await signIn(t.http, user);
    const first = await browser.post('/api/v1/me/passkeys/options');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      rp: { id: 'localhost', name: 'Platform' },
      user: { id: Buffer.from(user.id, 'hex').toString('base64url'), name: user.email },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      attestation: 'none',
      excludeCredentials: [],
    });
    expect(first.body.challenge).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const authenticator = new SoftwareAuthenticator();
    const added = await browser.post('/api/v1/me/passkeys', { name: 'Laptop', credential: authenticator.create(first.body) });
    expect(added.status).toBe(201);
    const second = await browser.post('/api/v1/me/passkeys/options');
    expect(second.body.challenge).not.toBe(first.body.challenge);
    expect(second.body.excludeCredentials).toEqual([{ id: authenticator.credentials[0].id.toString('base64url'), type: 'public-key', transports: ['internal'] }]);
    // A bearer token registers as well as a session does.
    expect((await t.http.post('/api/v1/me/passkeys/options', undefined, { token: user.token })).status).toBe(200);
    expectError(await t.http.post('/api/v1/me/passkeys/options'), 401);
  });

  it('registers several passkeys, named; lists them oldest first with when each was used; renames and removes one; what is stored has no secret in the answer', async () => {
    const user = await createFirstAdmin(t.http);
    const browser = await signIn(t.http, user);
    const laptop = new SoftwareAuthenticator();
    const phone = new SoftwareAuthenticator();
    const first = await addPasskey(browser, laptop, 'Laptop');
    const second = await addPasskey(browser, phone, '  Phone  ');
    expect(first).toEqual({ id: expect.any(String), name: 'Laptop', synced: false, createdAt: expect.any(String), lastUsedAt: null });
    expect(second.name).toBe('Phone');

    const stored = await t.db.collection('passkeys').findOne({ _id: new Types.ObjectId(first.id) });
    expect(stored).toMatchObject({ credentialId: laptop.credentials[0].id.toString('base64url'), counter: 0, transports: ['internal'] });
    expect(typeof stored!.publicKey).toBe('string');

    const signedIn = await t.http.post('/api/v1/sessions/passkey', { credential: phone.get(await options()) });
    expect(signedIn.status).toBe(201);
    const list = await browser.get('/api/v1/me/passkeys');
    expect(list.status).toBe(200);
    expect(list.body.data.map((passkey: { name: string }) => passkey.name)).toEqual(['Laptop', 'Phone']);
    expect(list.body.data[0].lastUsedAt).toBeNull();
    expect(Date.parse(list.body.data[1].lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.stringify(list.body)).not.toMatch(/publicKey|counter|credentialId/);

    const renamed = await browser.patch(`/api/v1/me/passkeys/${first.id}`, { name: 'Old laptop' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.name).toBe('Old laptop');
    expectValidationError(await browser.patch(`/api/v1/me/passkeys/${first.id}`, { name: '   ' }), 'name');
    expectValidationError(await browser.patch(`/api/v1/me/passkeys/${first.id}`, { name: 'x'.repeat(65) }), 'name');

    expect((await browser.delete(`/api/v1/me/passkeys/${first.id}`)).status).toBe(200);
    expect((await browser.get('/api/v1/me/passkeys')).body.data.map((passkey: { name: string }) => passkey.name)).toEqual(['Phone']);
    // A removed passkey signs no one in.
    expectError(await t.http.post('/api/v1/sessions/passkey', { credential: laptop.get(await options()) }), 401, /not registered/);
    expectNotFound(await browser.delete(`/api/v1/me/passkeys/${first.id}`), 'Passkey not found');
  });

  it("another user's passkey is a 404 to rename or remove, as an unknown one, and is left as it was", async () => {
    const owner = await createFirstAdmin(t.http);
    const colleague = await createUser(t.http, 'developer', owner.token);
    const ownerKey = await addPasskey(await signIn(t.http, owner), new SoftwareAuthenticator(), 'Owner key');
    const other = await signIn(t.http, colleague);
    expectNotFound(await other.patch(`/api/v1/me/passkeys/${ownerKey.id}`, { name: 'Mine now' }), 'Passkey not found');
    expectNotFound(await other.delete(`/api/v1/me/passkeys/${ownerKey.id}`), 'Passkey not found');
    expectNotFound(await other.delete('/api/v1/me/passkeys/665f1f77bcf86cd799439011'), 'Passkey not found');
    expectError(await other.delete('/api/v1/me/passkeys/not-an-id'), 400);
    expect(await t.db.collection('passkeys').findOne({ name: 'Owner key' })).not.toBeNull();
  });

  it('signs in with a passkey alone: a session with assurance mfa, a new cookie, the sign-in audited', async () => {
    const user = await createFirstAdmin(t.http);
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(await signIn(t.http, user), authenticator);
    const res = await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options()) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ message: 'Signed in', session: { current: true, assurance: 'mfa' }, user: { id: user.id, email: user.email } });
    const cookie = sessionCookie(res)!;
    expect(cookie).toMatch(/^sid=/);
    const me = await new Browser(t.http, cookie).get('/api/v1/me');
    expect(me.status).toBe(200);
    const logged = await t.http.get(`/api/v1/accounts/${user.accountId}/audit-log?action=user.logged_in`, { token: user.token });
    expect(logged.body.data.length).toBeGreaterThanOrEqual(2);
  });

  it('a challenge answers once: the same answer replayed, or sent twice at once, opens one session', async () => {
    const user = await createFirstAdmin(t.http);
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(await signIn(t.http, user), authenticator);
    const answer = authenticator.get(await options());
    expect((await t.http.post('/api/v1/sessions/passkey', { credential: answer })).status).toBe(201);
    expectError(await t.http.post('/api/v1/sessions/passkey', { credential: answer }), 401, /answered already/);

    const raced = authenticator.get(await options());
    const answers = await Promise.all(Array.from({ length: 4 }, () => t.http.post('/api/v1/sessions/passkey', { credential: raced })));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 401, 401, 401]);

    // A registration's challenge too, and it is bound to its user.
    const browser = new Browser(t.http, sessionCookie(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options()) }))!);
    const registration = (await browser.post('/api/v1/me/passkeys/options')).body;
    const created = new SoftwareAuthenticator().create(registration);
    expect((await browser.post('/api/v1/me/passkeys', { name: 'Once', credential: created })).status).toBe(201);
    expectError(await browser.post('/api/v1/me/passkeys', { name: 'Twice', credential: created }), 409, /answered already/);
    const stranger = await signIn(t.http, await createFirstAdmin(t.http));
    const forUser = (await browser.post('/api/v1/me/passkeys/options')).body;
    expectError(await stranger.post('/api/v1/me/passkeys', { name: 'Not mine', credential: new SoftwareAuthenticator().create(forUser) }), 409, /unknown or expired/);
  });

  it('refuses a challenge it never issued, one of the other ceremony, a stale one, a wrong origin and a counter that goes backwards', async () => {
    const user = await createFirstAdmin(t.http);
    const authenticator = new SoftwareAuthenticator();
    const browser = await signIn(t.http, user);
    await addPasskey(browser, authenticator);
    expectError(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get({ challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmljZQ' }) }), 401, /unknown or expired/);
    const registration = (await browser.post('/api/v1/me/passkeys/options')).body;
    expectError(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(registration) }), 401, /unknown or expired/);

    const stale = await options();
    await t.db.collection('passkey_challenges').updateOne({ _id: stale.challenge }, { $set: { createdAt: new Date(Date.now() - 10 * 60_000) } });
    expectError(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(stale) }), 401, /unknown or expired/);

    expectError(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options(), { origin: 'https://evil.example' }) }), 401, /origin/i);

    expect((await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options(), { counter: 10 }) })).status).toBe(201);
    expectError(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options(), { counter: 7 }) }), 401, /counter/);
    expectError(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options(), { counter: 10 }) }), 401, /counter/);
    expect((await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options(), { counter: 11 }) })).status).toBe(201);
    expect((await t.db.collection('passkeys').findOne({ credentialId: authenticator.credentials[0].id.toString('base64url') }))!.counter).toBe(11);
  });

  it('refuses malformed answers with 400 naming the field, before any challenge is spent', async () => {
    const user = await createFirstAdmin(t.http);
    const authenticator = new SoftwareAuthenticator();
    const browser = await signIn(t.http, user);
    const registration = (await browser.post('/api/v1/me/passkeys/options')).body;
    const created = authenticator.create(registration);
    expectValidationError(await browser.post('/api/v1/me/passkeys', { credential: created }), 'name');
    expectValidationError(await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: { ...created, type: 'password' } }), 'credential.type');
    expectValidationError(await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: { ...created, response: { ...created.response, attestationObject: 'not base64url!' } } }), 'credential.response.attestationObject');
    expectValidationError(await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: { ...created, extra: 1 } }), 'credential.extra');
    const { response: _dropped, ...withoutResponse } = created;
    expectValidationError(await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: withoutResponse }), 'credential.response');
    expectError(await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: { ...created, response: { ...created.response, clientDataJSON: 'bm90IGpzb24' } } }), 400, /client data/);
    // The challenge is still good for a proper answer.
    expect((await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: created })).status).toBe(201);
    expectValidationError(await t.http.post('/api/v1/sessions/passkey', {}), 'credential');
    const { response: _unsent, ...assertionWithoutResponse } = authenticator.get(await options());
    expectValidationError(await t.http.post('/api/v1/sessions/passkey', { credential: assertionWithoutResponse }), 'credential.response');
    expectValidationError(await t.http.post('/api/v1/sessions/passkey', { credential: { ...authenticator.get(await options()), response: {} } }), 'credential.response.signature');
    // The same credential registered again (an authenticator ignoring excludeCredentials): 409, for this user or another.
    const again = (await browser.post('/api/v1/me/passkeys/options')).body;
    expectError(await browser.post('/api/v1/me/passkeys', { name: 'Same', credential: authenticator.create(again, { credential: authenticator.credentials[0] }) }), 409);
    const other = await signIn(t.http, await createFirstAdmin(t.http));
    const otherOptions = (await other.post('/api/v1/me/passkeys/options')).body;
    expectError(await other.post('/api/v1/me/passkeys', { name: 'Same', credential: authenticator.create(otherOptions, { credential: authenticator.credentials[0] }) }), 409);
  });

  it('a passkey is a second factor: a password alone then asks for one, an account may require factors, step-up takes the passkey', async () => {
    const owner = await createFirstAdmin(t.http);
    const authenticator = new SoftwareAuthenticator();
    const browser = await signIn(t.http, owner);
    // Without a factor the owner cannot require one.
    expectError(await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: true }, { token: owner.token }), 409);
    await addPasskey(browser, authenticator);
    const password = await t.http.post('/api/v1/sessions', { email: owner.email, password: owner.password });
    expectError(password, 401);
    expect(password.body.code).toBe('mfa_required');
    expect((await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: true }, { token: owner.token })).status).toBe(200);

    // Step-up with the passkey: a new cookie with assurance mfa.
    const signedIn = await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options()) });
    const session = new Browser(t.http, sessionCookie(signedIn)!);
    const before = session.cookie;
    const raised = await session.post('/api/v1/sessions/current/step-up/passkey', { credential: authenticator.get(await options()) });
    expect(raised.status).toBe(200);
    expect(raised.body.data.assurance).toBe('mfa');
    expect(session.cookie).not.toBe(before);
    expectError(await new Browser(t.http, before).get('/api/v1/me'), 401);

    // Another user's passkey proves nothing for this session.
    const strangerKey = new SoftwareAuthenticator();
    await addPasskey(await signIn(t.http, await createFirstAdmin(t.http)), strangerKey);
    expectError(await session.post('/api/v1/sessions/current/step-up/passkey', { credential: strangerKey.get(await options()) }), 401, /not registered/);
    // A bearer token has no session to raise.
    expectError(await t.http.post('/api/v1/sessions/current/step-up/passkey', { credential: authenticator.get(await options()) }, { token: owner.token }), 403);
  });

  it('a user with TOTP and a passkey keeps both; removing the passkey leaves TOTP on', async () => {
    const user = await createFirstAdmin(t.http);
    const browser = await signIn(t.http, user);
    const { secret } = await enableTotp(browser);
    const key = await addPasskey(browser, new SoftwareAuthenticator());
    const both = await browser.get('/api/v1/me/mfa');
    expect(both.status).toBe(200);
    expect(both.body.data).toEqual({ totpEnabledAt: expect.any(String), recoveryCodesLeft: 10, passkeys: 1 });
    expect((await browser.delete(`/api/v1/me/passkeys/${key.id}`)).status).toBe(200);
    expect((await browser.get('/api/v1/me/mfa')).body.data).toMatchObject({ recoveryCodesLeft: 10, passkeys: 0 });
    expect((await t.http.get('/api/v1/me/mfa', { token: (await createFirstAdmin(t.http)).token })).body.data).toEqual({ totpEnabledAt: null, recoveryCodesLeft: 0, passkeys: 0 });
    expectError(await t.http.post('/api/v1/sessions', { email: user.email, password: user.password }), 401);
    expect((await t.http.post('/api/v1/sessions', { email: user.email, password: user.password, totp: await totp(secret, 1) })).status).toBe(201);
  });

  it('adding and removing a passkey is audited in every account of the user and mailed to them', async () => {
    const user = await createFirstAdmin(t.http);
    const browser = await signIn(t.http, user, {}, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' });
    const key = await addPasskey(browser, new SoftwareAuthenticator(), 'Desk key');
    expect((await browser.delete(`/api/v1/me/passkeys/${key.id}`)).status).toBe(200);
    for (const action of ['passkey.added', 'passkey.removed']) {
      const log = await t.http.get(`/api/v1/accounts/${user.accountId}/audit-log?action=${action}`, { token: user.token });
      expect(log.status).toBe(200);
      expect(log.body.data).toHaveLength(1);
      expect(log.body.data[0]).toMatchObject({ action, actor: { type: 'user', id: user.id, label: user.email }, target: { type: 'passkey', id: key.id, label: 'Desk key' } });
    }
    const added = await mail.waitFor(user.email, /^Passkey added to your account$/);
    expect(added.text).toContain('A passkey ("Desk key") was added to your account.');
    expect(added.links).toEqual([]);
    const removed = await mail.waitFor(user.email, /^Passkey removed from your account$/);
    expect(removed.text).toContain('was removed from your account');
  });

  it('authentication options need no account: a new challenge each time, stored for its ceremony, any passkey of the service', async () => {
    const first = await options();
    const second = await options();
    expect(first).toMatchObject({ rpId: 'localhost', userVerification: 'required', timeout: 120000 });
    expect(first.allowCredentials ?? []).toEqual([]);
    expect(first.challenge).not.toBe(second.challenge);
    expect(await t.db.collection('passkey_challenges').findOne({ _id: first.challenge })).toMatchObject({ ceremony: 'authentication', userId: null });
  });
});
