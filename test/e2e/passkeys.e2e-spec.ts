import { generateKeyPairSync } from 'node:crypto';
import { Types } from 'mongoose';
import { createFirstAdmin, createUser } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import { MailServer } from '../support/mail-server';
import { addPasskey, SoftwareAuthenticator } from '../support/passkeys';
import { Browser, enableTotp, sessionCookie, signIn, totp } from '../support/sessions';
import { createTestApp, type TestApp } from '../support/test-app';
import { pollUntil } from '../support/deadline';

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
    const added = await browser.post('/api/v1/me/passkeys', {
      name: 'Laptop',
      credential: authenticator.create(first.body),
    });
    expect(added.status).toBe(201);
    const second = await browser.post('/api/v1/me/passkeys/options');
    expect(second.body.challenge).not.toBe(first.body.challenge);
    expect(second.body.excludeCredentials).toEqual([
      { id: authenticator.credentials[0].id.toString('base64url'), type: 'public-key', transports: ['internal'] },
    ]);
    // A bearer token registers as a session does, when it proved the user's strongest credential lately: this one,
    // from the password alone before the passkey, no longer does (step-up).
    expect((await t.http.post('/api/v1/me/passkeys/options', undefined, { token: user.token })).body.code).toBe(
      'step_up_required',
    );
    expect(
      (await t.http.post('/api/v1/me/passkeys/options', undefined, { token: (await createFirstAdmin(t.http)).token }))
        .status,
    ).toBe(200);
    expectError(await t.http.post('/api/v1/me/passkeys/options'), 401);
  });

  it('registers several passkeys, named; lists them oldest first with when each was used; renames and removes one; what is stored has no secret in the answer', async () => {
    const user = await createFirstAdmin(t.http);
    const browser = await signIn(t.http, user);
    const laptop = new SoftwareAuthenticator();
    const phone = new SoftwareAuthenticator();
    const first = await addPasskey(browser, laptop, 'Laptop');
    const second = await addPasskey(browser, phone, '  Phone  ');
    expect(first).toEqual({
      id: expect.any(String),
      name: 'Laptop',
      synced: false,
      createdAt: expect.any(String),
      lastUsedAt: null,
    });
    expect(second.name).toBe('Phone');

    const stored = await t.db.collection('passkeys').findOne({ _id: new Types.ObjectId(first.id) });
    expect(stored).toMatchObject({
      credentialId: laptop.credentials[0].id.toString('base64url'),
      counter: 0,
      transports: ['internal'],
    });
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
    expect(
      (await browser.get('/api/v1/me/passkeys')).body.data.map((passkey: { name: string }) => passkey.name),
    ).toEqual(['Phone']);
    // A removed passkey signs no one in.
    expectError(
      await t.http.post('/api/v1/sessions/passkey', { credential: laptop.get(await options()) }),
      401,
      /not registered/,
    );
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
    expect(res.body).toMatchObject({
      message: 'Signed in',
      session: { current: true, assurance: 'mfa' },
      user: { id: user.id, email: user.email },
    });
    const cookie = sessionCookie(res)!;
    expect(cookie).toMatch(/^sid=/);
    const me = await new Browser(t.http, cookie).get('/api/v1/me');
    expect(me.status).toBe(200);
    const logged = await t.http.get(`/api/v1/accounts/${user.accountId}/audit-log?action=user.logged_in`, {
      token: user.token,
    });
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
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => t.http.post('/api/v1/sessions/passkey', { credential: raced })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 401, 401, 401]);

    // A registration's challenge too, and it is bound to its user.
    const browser = new Browser(
      t.http,
      sessionCookie(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options()) }))!,
    );
    const registration = (await browser.post('/api/v1/me/passkeys/options')).body;
    const created = new SoftwareAuthenticator().create(registration);
    expect((await browser.post('/api/v1/me/passkeys', { name: 'Once', credential: created })).status).toBe(201);
    expectError(
      await browser.post('/api/v1/me/passkeys', { name: 'Twice', credential: created }),
      409,
      /answered already/,
    );
    const stranger = await signIn(t.http, await createFirstAdmin(t.http));
    const forUser = (await browser.post('/api/v1/me/passkeys/options')).body;
    expectError(
      await stranger.post('/api/v1/me/passkeys', {
        name: 'Not mine',
        credential: new SoftwareAuthenticator().create(forUser),
      }),
      409,
      /unknown or expired/,
    );
  });

  it('refuses a challenge it never issued, one of the other ceremony, a stale one, a wrong origin and a counter that goes backwards', async () => {
    const user = await createFirstAdmin(t.http);
    const authenticator = new SoftwareAuthenticator();
    const browser = await signIn(t.http, user);
    await addPasskey(browser, authenticator);
    expectError(
      await t.http.post('/api/v1/sessions/passkey', {
        credential: authenticator.get({ challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmljZQ' }),
      }),
      401,
      /unknown or expired/,
    );
    const registration = (await browser.post('/api/v1/me/passkeys/options')).body;
    expectError(
      await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(registration) }),
      401,
      /unknown or expired/,
    );

    const stale = await options();
    await t.db
      .collection('passkey_challenges')
      .updateOne({ _id: stale.challenge }, { $set: { createdAt: new Date(Date.now() - 10 * 60_000) } });
    expectError(
      await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(stale) }),
      401,
      /unknown or expired/,
    );

    expectError(
      await t.http.post('/api/v1/sessions/passkey', {
        credential: authenticator.get(await options(), { origin: 'https://evil.example' }),
      }),
      401,
      /origin/i,
    );

    expect(
      (
        await t.http.post('/api/v1/sessions/passkey', {
          credential: authenticator.get(await options(), { counter: 10 }),
        })
      ).status,
    ).toBe(201);
    expectError(
      await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options(), { counter: 7 }) }),
      401,
      /counter/,
    );
    expectError(
      await t.http.post('/api/v1/sessions/passkey', {
        credential: authenticator.get(await options(), { counter: 10 }),
      }),
      401,
      /counter/,
    );
    expect(
      (
        await t.http.post('/api/v1/sessions/passkey', {
          credential: authenticator.get(await options(), { counter: 11 }),
        })
      ).status,
    ).toBe(201);
    expect(
      (await t.db
        .collection('passkeys')
        .findOne({ credentialId: authenticator.credentials[0].id.toString('base64url') }))!.counter,
    ).toBe(11);
  });

  it('refuses malformed answers with 400 naming the field, before any challenge is spent', async () => {
    const user = await createFirstAdmin(t.http);
    const authenticator = new SoftwareAuthenticator();
    const browser = await signIn(t.http, user);
    const registration = (await browser.post('/api/v1/me/passkeys/options')).body;
    const created = authenticator.create(registration);
    expectValidationError(await browser.post('/api/v1/me/passkeys', { credential: created }), 'name');
    expectValidationError(
      await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: { ...created, type: 'password' } }),
      'credential.type',
    );
    expectValidationError(
      await browser.post('/api/v1/me/passkeys', {
        name: 'Key',
        credential: { ...created, response: { ...created.response, attestationObject: 'not base64url!' } },
      }),
      'credential.response.attestationObject',
    );
    expectValidationError(
      await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: { ...created, extra: 1 } }),
      'credential.extra',
    );
    const { response: _dropped, ...withoutResponse } = created;
    expectValidationError(
      await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: withoutResponse }),
      'credential.response',
    );
    expectError(
      await browser.post('/api/v1/me/passkeys', {
        name: 'Key',
        credential: { ...created, response: { ...created.response, clientDataJSON: 'bm90IGpzb24' } },
      }),
      400,
      /client data/,
    );
    // The challenge is still good for a proper answer.
    expect((await browser.post('/api/v1/me/passkeys', { name: 'Key', credential: created })).status).toBe(201);
    expectValidationError(await t.http.post('/api/v1/sessions/passkey', {}), 'credential');
    const { response: _unsent, ...assertionWithoutResponse } = authenticator.get(await options());
    expectValidationError(
      await t.http.post('/api/v1/sessions/passkey', { credential: assertionWithoutResponse }),
      'credential.response',
    );
    expectValidationError(
      await t.http.post('/api/v1/sessions/passkey', {
        credential: { ...authenticator.get(await options()), response: {} },
      }),
      'credential.response.signature',
    );
    // The same credential registered again (an authenticator ignoring excludeCredentials): 409, for this user or another.
    const again = (await browser.post('/api/v1/me/passkeys/options')).body;
    expectError(
      await browser.post('/api/v1/me/passkeys', {
        name: 'Same',
        credential: authenticator.create(again, { credential: authenticator.credentials[0] }),
      }),
      409,
    );
    const other = await signIn(t.http, await createFirstAdmin(t.http));
    const otherOptions = (await other.post('/api/v1/me/passkeys/options')).body;
    expectError(
      await other.post('/api/v1/me/passkeys', {
        name: 'Same',
        credential: authenticator.create(otherOptions, { credential: authenticator.credentials[0] }),
      }),
      409,
    );
  });

  it('a passkey is a second factor: a password alone then asks for one, an account may require factors, step-up takes the passkey', async () => {
    const owner = await createFirstAdmin(t.http);
    const authenticator = new SoftwareAuthenticator();
    const browser = await signIn(t.http, owner);
    // Without a factor the owner cannot require one.
    expectError(
      await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: true }, { token: owner.token }),
      409,
    );
    await addPasskey(browser, authenticator);
    const password = await t.http.post('/api/v1/sessions', { email: owner.email, password: owner.password });
    expectError(password, 401);
    expect(password.body.code).toBe('mfa_required');
    expect(
      (await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: true }, { token: owner.token })).status,
    ).toBe(200);

    // Step-up with the passkey: a new cookie with assurance mfa.
    const signedIn = await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(await options()) });
    const session = new Browser(t.http, sessionCookie(signedIn)!);
    const before = session.cookie;
    const raised = await session.post('/api/v1/sessions/current/step-up/passkey', {
      credential: authenticator.get(await options()),
    });
    expect(raised.status).toBe(200);
    expect(raised.body.data.assurance).toBe('mfa');
    expect(session.cookie).not.toBe(before);
    expectError(await new Browser(t.http, before).get('/api/v1/me'), 401);

    // Another user's passkey proves nothing for this session.
    const strangerKey = new SoftwareAuthenticator();
    await addPasskey(await signIn(t.http, await createFirstAdmin(t.http)), strangerKey);
    expectError(
      await session.post('/api/v1/sessions/current/step-up/passkey', { credential: strangerKey.get(await options()) }),
      401,
      /not registered/,
    );
    // A bearer token has no session to raise.
    expectError(
      await t.http.post(
        '/api/v1/sessions/current/step-up/passkey',
        { credential: authenticator.get(await options()) },
        { token: owner.token },
      ),
      403,
    );
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
    expect((await t.http.get('/api/v1/me/mfa', { token: (await createFirstAdmin(t.http)).token })).body.data).toEqual({
      totpEnabledAt: null,
      recoveryCodesLeft: 0,
      passkeys: 0,
    });
    expectError(await t.http.post('/api/v1/sessions', { email: user.email, password: user.password }), 401);
    expect(
      (
        await t.http.post('/api/v1/sessions', {
          email: user.email,
          password: user.password,
          totp: await totp(secret, 1),
        })
      ).status,
    ).toBe(201);
  });

  it('adding and removing a passkey is audited in every account of the user and mailed to them', async () => {
    const user = await createFirstAdmin(t.http);
    const browser = await signIn(
      t.http,
      user,
      {},
      { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' },
    );
    const key = await addPasskey(browser, new SoftwareAuthenticator(), 'Desk key');
    expect((await browser.delete(`/api/v1/me/passkeys/${key.id}`)).status).toBe(200);
    for (const action of ['passkey.added', 'passkey.removed']) {
      // Removing a factor ended the tokens issued before it: the session that removed it reads on.
      const log = await browser.get(`/api/v1/accounts/${user.accountId}/audit-log?action=${action}`);
      expect(log.status).toBe(200);
      expect(log.body.data).toHaveLength(1);
      expect(log.body.data[0]).toMatchObject({
        action,
        actor: { type: 'user', id: user.id, label: user.email },
        target: { type: 'passkey', id: key.id, label: 'Desk key' },
      });
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
    expect(await t.db.collection('passkey_challenges').findOne({ _id: first.challenge })).toMatchObject({
      ceremony: 'authentication',
      userId: null,
    });
  });
});

/**
 * A passkey's answer is a login attempt of its address: the address's limit of `POST /api/v1/login`
 * holds for it, counted with password failures from there; it never counts against the email of the
 * user its passkey names, whose failures never lock the passkey out.
 */
describe('passkey sign-in under the login limits', () => {
  let t: TestApp;
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const options = async () => {
    const res = await t.http.post('/api/v1/sessions/passkey/options');
    expect(res.status).toBe(200);
    return res.body;
  };
  const answer = (credential: unknown, headers: Record<string, string>) =>
    t.http.post('/api/v1/sessions/passkey', { credential }, { headers });
  /** An answer naming the authenticator's passkey, signed with another key: what a stranger who knows the credential id can send. */
  const forged = (authenticator: SoftwareAuthenticator, challenge: { challenge: string }) =>
    authenticator.get(challenge, {
      credential: {
        ...authenticator.credentials[0],
        privateKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
      },
    });
  const attempts = (conditions: Record<string, unknown>) =>
    t.db.collection('auth_attempts').countDocuments({ kind: 'login', ...conditions });

  beforeAll(async () => {
    t = await createTestApp({
      LOGIN_MAX_FAILURES: '3',
      LOGIN_MAX_FAILURES_PER_CLIENT: '6',
      LOGIN_MAX_FAILURES_PER_EMAIL: '5',
      TRUST_PROXY: '127.0.0.1',
    });
  });

  afterAll(async () => {
    await t.close();
  });

  it('counts refused answers toward the address alone, as wrong passwords from it; past its limit 429 before anything is verified; a sign-in forgets them', async () => {
    const owner = await createFirstAdmin(t.http);
    const home = from('198.51.100.7');
    const key = new SoftwareAuthenticator();
    await addPasskey(await signIn(t.http, owner, {}, home), key);
    const email = owner.email.toLowerCase();

    const stranger = from('203.0.113.9');
    for (let i = 0; i < 6; i++) expectError(await answer(forged(key, await options()), stranger), 401, /signature/);
    // The address's limit (6): refused before it is verified, even a genuine answer, and its challenge is not spent.
    const genuine = key.get(await options());
    const blocked = await answer(genuine, stranger);
    expectError(blocked, 429, /Too many failed login attempts/);
    expect(blocked.headers.get('retry-after')).toBe('900');
    expect(await attempts({ email: null, client: '203.0.113.9' })).toBe(7);
    // Nothing against the email of the user the passkey names.
    expect(await attempts({ email })).toBe(0);
    // Shared with password logins: the address is blocked there too.
    expectError(
      await t.http.post('/api/v1/login', { email: owner.email, password: owner.password }, { headers: stranger }),
      429,
    );

    // From home a failure counts, and the sign-in then forgets it; the stranger's stay.
    expectError(await answer(forged(key, await options()), home), 401);
    expect(await attempts({ email: null, client: '198.51.100.7' })).toBe(1);
    expect((await answer(genuine, home)).status).toBe(201);
    expect(await attempts({ email: null, client: '198.51.100.7' })).toBe(0);
    expect(await attempts({ email: null, client: '203.0.113.9' })).toBe(7);

    // Each refused answer naming the user is user.login_failed in their account, as a wrong password is.
    const failed = async () =>
      (
        await t.http.get(`/api/v1/accounts/${owner.accountId}/audit-log?action=user.login_failed`, {
          token: owner.token,
        })
      ).body.data.length;
    // Written in the background, as for a wrong password.
    await pollUntil(async () => (await failed()) >= 7, 5_000);
    expect(await failed()).toBe(7);
  });

  it("neither a stranger's refused answers nor failed passwords from many addresses lock the owner's passkey out anywhere, nor the owner out where they sign in", async () => {
    const owner = await createFirstAdmin(t.http);
    const home = from('198.51.100.20');
    const key = new SoftwareAuthenticator();
    await addPasskey(await signIn(t.http, owner, {}, home), key);
    for (const address of ['203.0.113.20', '203.0.113.20', '203.0.113.21', '203.0.113.21', '203.0.113.22']) {
      expectError(await answer(forged(key, await options()), from(address)), 401);
    }
    // Past the email's limit (5) with wrong passwords from six addresses: new addresses are refused the password.
    const guesses = [];
    for (let i = 0; i < 6; i++)
      guesses.push(
        (
          await t.http.post(
            '/api/v1/sessions',
            { email: owner.email, password: 'not the password' },
            { headers: from(`203.0.113.${60 + i}`) },
          )
        ).status,
      );
    expect(guesses).toEqual([401, 401, 401, 401, 401, 429]);
    // The passkey still signs in from an address never seen, and the password (with its factor asked) from home.
    const signedIn = await answer(key.get(await options()), from('192.0.2.23'));
    expect(signedIn.status).toBe(201);
    expect(signedIn.body.user.id).toBe(owner.id);
    expect(
      (await t.http.post('/api/v1/sessions', { email: owner.email, password: owner.password }, { headers: home })).body
        .code,
    ).toBe('mfa_required');
  });

  it('answers sent at once are each counted before any is verified: no more than the limit are verified', async () => {
    const owner = await createFirstAdmin(t.http);
    const key = new SoftwareAuthenticator();
    await addPasskey(await signIn(t.http, owner), key);
    const forgedAnswers = [];
    for (let i = 0; i < 8; i++) forgedAnswers.push(forged(key, await options()));
    const statuses = (
      await Promise.all(forgedAnswers.map((credential) => answer(credential, from('203.0.113.30'))))
    ).map((res) => res.status);
    // The address's limit is 6: every one past it was refused before its signature was checked.
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(6);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    expect(await attempts({ email: null, client: '203.0.113.30' })).toBe(8);
  });

  it('an answer naming no passkey of this service counts toward the address alone', async () => {
    const unknown = new SoftwareAuthenticator();
    unknown.create({
      challenge: 'bm90LWlzc3VlZC1ieS10aGUtc2VydmljZQ',
      rp: { id: 'localhost' },
      user: { id: 'bm8tc3VjaC11c2Vy' },
    });
    const guesser = from('203.0.113.40');
    for (let i = 0; i < 6; i++) expectError(await answer(unknown.get(await options()), guesser), 401, /not registered/);
    expectError(await answer(unknown.get(await options()), guesser), 429, /Too many failed login attempts/);
    expect(await attempts({ client: '203.0.113.40', email: null })).toBe(7);
    // The address is blocked for every email, password logins too; another address is not.
    const someone = await createFirstAdmin(t.http);
    expectError(
      await t.http.post('/api/v1/login', { email: someone.email, password: someone.password }, { headers: guesser }),
      429,
    );
    expectError(await answer(unknown.get(await options()), from('203.0.113.41')), 401, /not registered/);
  });

  it("a passkey step-up that fails counts toward the address's limit; past it 429, even with the user's own passkey", async () => {
    const user = await createFirstAdmin(t.http);
    const browser = await signIn(t.http, user);
    const key = new SoftwareAuthenticator();
    await addPasskey(browser, key);
    const strangerKey = new SoftwareAuthenticator();
    await addPasskey(await signIn(t.http, await createFirstAdmin(t.http)), strangerKey);
    for (let i = 0; i < 6; i++)
      expectError(
        await browser.post('/api/v1/sessions/current/step-up/passkey', {
          credential: strangerKey.get(await options()),
        }),
        401,
        /not registered/,
      );
    expect(await attempts({ email: null, client: '127.0.0.1' })).toBe(6);
    expectError(
      await browser.post('/api/v1/sessions/current/step-up/passkey', { credential: key.get(await options()) }),
      429,
    );
  });
});

describe('passkey options under a limit per client address', () => {
  let t: TestApp;
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const ask = (address: string) =>
    t.http.post('/api/v1/sessions/passkey/options', undefined, { headers: from(address) });
  const asked = (client: string) =>
    t.db.collection('auth_attempts').countDocuments({ kind: 'passkey_options', client });

  beforeAll(async () => {
    t = await createTestApp({ PASSKEY_OPTIONS_MAX_PER_CLIENT: '3', TRUST_PROXY: '127.0.0.1' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers 429 with Retry-After past PASSKEY_OPTIONS_MAX_PER_CLIENT, writes no challenge then, and counts registration options with them', async () => {
    for (let i = 0; i < 3; i++) expect((await ask('203.0.113.50')).status).toBe(200);
    const challenges = await t.db.collection('passkey_challenges').countDocuments();
    const refused = await ask('203.0.113.50');
    expectError(refused, 429, /Too many passkey ceremonies started from this client/);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(890);
    expect(wait).toBeLessThanOrEqual(900);
    expect(await t.db.collection('passkey_challenges').countDocuments()).toBe(challenges);
    // A refused request counts for nothing.
    expect(await asked('203.0.113.50')).toBe(3);
    // Another address is apart.
    expect((await ask('203.0.113.51')).status).toBe(200);
    // Registration options write a challenge too: the same count.
    const user = await createFirstAdmin(t.http);
    expectError(
      await t.http.post('/api/v1/me/passkeys/options', undefined, { token: user.token, headers: from('203.0.113.50') }),
      429,
    );
    expect(
      (
        await t.http.post('/api/v1/me/passkeys/options', undefined, {
          token: user.token,
          headers: from('203.0.113.52'),
        })
      ).status,
    ).toBe(200);
    expect(await asked('203.0.113.52')).toBe(1);
  });

  it('Retry-After says when the oldest request leaves the window; then one more is admitted', async () => {
    for (let i = 0; i < 3; i++) expect((await ask('203.0.113.60')).status).toBe(200);
    const stored = t.db.collection('auth_attempts');
    await stored.updateMany(
      { kind: 'passkey_options', client: '203.0.113.60' },
      { $set: { at: new Date(Date.now() - 600_000) } },
    );
    const refused = await ask('203.0.113.60');
    expectError(refused, 429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(290);
    expect(wait).toBeLessThanOrEqual(300);
    const [oldest] = await stored.find({ kind: 'passkey_options', client: '203.0.113.60' }).limit(1).toArray();
    await stored.updateOne({ _id: oldest._id }, { $set: { at: new Date(Date.now() - 901_000) } });
    expect((await ask('203.0.113.60')).status).toBe(200);
    expectError(await ask('203.0.113.60'), 429);
  });
});
