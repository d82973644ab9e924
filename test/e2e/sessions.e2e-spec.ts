import { createHash, randomBytes } from 'node:crypto';
import { commandsOf, monitoredDatabaseUri } from '../support/commands';
import { createFirstAdmin, createUser, login, uniqueEmail, type TestUser } from '../support/auth';
import { expectError } from '../support/expect-error';
import { Browser, enableTotp, sessionCookie, signIn, totp } from '../support/sessions';
import { createTestApp, TestApp } from '../support/test-app';

const DASHBOARD = 'https://dashboard.example.com';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const tokenOf = (cookie: string) => cookie.slice('sid='.length);

describe('dashboard sessions', () => {
  let t: TestApp;
  let sessions: ReturnType<TestApp['db']['collection']>;
  let users: ReturnType<TestApp['db']['collection']>;

  beforeAll(async () => {
    // Command monitoring on the service's own client, for the cost test below.
    t = await createTestApp({
      DASHBOARD_ORIGINS: DASHBOARD,
      MONGODB_URI: monitoredDatabaseUri(`test_${randomBytes(6).toString('hex')}`),
    });
    sessions = t.db.collection('sessions');
    users = t.db.collection('users');
  });
  afterAll(() => t.close());

  async function stored(browser: Browser) {
    return sessions.findOne({ tokenHash: sha256(tokenOf(browser.cookie)) });
  }

  describe('signing in', () => {
    it('sets an HttpOnly, SameSite=Lax cookie of a random token stored only as its SHA-256, with who, when and from where', async () => {
      const user = await createFirstAdmin(t.http);
      const res = await t.http.post(
        '/api/v1/sessions',
        { email: user.email, password: user.password },
        { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' } },
      );
      expect(res.status).toBe(201);
      const [header] = res.headers.getSetCookie();
      expect(header).toMatch(/^sid=[A-Za-z0-9_-]{43};/);
      expect(header).toMatch(/; HttpOnly/);
      expect(header).toMatch(/; SameSite=Lax/);
      expect(header).toMatch(/; Path=\//);
      // Over plain http outside production: a browser would drop a Secure cookie here.
      expect(header).not.toMatch(/; Secure/);
      expect(res.body).toMatchObject({
        message: 'Signed in',
        session: { current: true, assurance: 'password', device: 'Firefox 128 on Linux' },
        user: { id: user.id },
      });
      const token = tokenOf(sessionCookie(res)!);
      const document = await sessions.findOne({ tokenHash: sha256(token) });
      expect(document).toMatchObject({
        assurance: 'password',
        ip: '127.0.0.1',
        accountId: user.accountId,
        mfaAt: null,
      });
      expect(String(document!.userId)).toBe(user.id);
      expect(document!.lastSeenAt).toBeInstanceOf(Date);
      expect(JSON.stringify(await sessions.find({}).toArray())).not.toContain(token);
    });

    it('authenticates with the cookie alone, while bearer tokens keep working unchanged', async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      const me = await browser.get('/api/v1/me');
      expect(me.status).toBe(200);
      expect(me.body.data.user.id).toBe(user.id);
      expect(me.body.data.account.id).toBe(user.accountId);
      expect((await t.http.get('/api/v1/me', { token: user.token })).status).toBe(200);
      expect(
        (await t.http.get(`/api/v1/accounts/${user.accountId}/members`, { headers: { cookie: browser.cookie } }))
          .status,
      ).toBe(200);
    });

    it('makes a new id at every sign-in', async () => {
      const user = await createFirstAdmin(t.http);
      const first = await signIn(t.http, user);
      const second = await signIn(t.http, user);
      expect(first.cookie).not.toBe(second.cookie);
      expect((await first.get('/api/v1/me')).status).toBe(200);
      expect((await second.get('/api/v1/me')).status).toBe(200);
    });

    it('answers an unknown email and a wrong password alike', async () => {
      const user = await createFirstAdmin(t.http);
      const wrong = await t.http.post('/api/v1/sessions', { email: user.email, password: 'not the password' });
      const unknown = await t.http.post('/api/v1/sessions', {
        email: uniqueEmail('nobody'),
        password: 'not the password',
      });
      expectError(wrong, 401, 'Invalid email or password');
      expect(unknown.body).toEqual(wrong.body);
      expect(wrong.headers.getSetCookie()).toEqual([]);
    });

    it('refuses a missing password and an unknown field (400), a forged or ended cookie (401)', async () => {
      expectError(await t.http.post('/api/v1/sessions', { email: uniqueEmail() }), 400);
      expectError(
        await t.http.get('/api/v1/me', { headers: { cookie: `sid=${randomBytes(32).toString('base64url')}` } }),
        401,
        'The session has ended: sign in again',
      );
      expectError(await t.http.get('/api/v1/me'), 401);
    });
  });

  describe('timeouts', () => {
    it('ends a session idle for SESSION_IDLE_MINUTES (30)', async () => {
      const browser = await signIn(t.http, await createFirstAdmin(t.http));
      await sessions.updateOne(
        { tokenHash: sha256(tokenOf(browser.cookie)) },
        { $set: { lastSeenAt: new Date(Date.now() - 29 * 60_000) } },
      );
      expect((await browser.get('/api/v1/me')).status).toBe(200);
      await sessions.updateOne(
        { tokenHash: sha256(tokenOf(browser.cookie)) },
        { $set: { lastSeenAt: new Date(Date.now() - 31 * 60_000) } },
      );
      expectError(await browser.get('/api/v1/me'), 401);
    });

    it('ends a session SESSION_MAX_HOURS (12) after sign-in, however active', async () => {
      const browser = await signIn(t.http, await createFirstAdmin(t.http));
      await sessions.updateOne(
        { tokenHash: sha256(tokenOf(browser.cookie)) },
        { $set: { signedInAt: new Date(Date.now() - 12 * 3_600_000 - 1000) } },
      );
      expectError(await browser.get('/api/v1/me'), 401);
    });

    it('moves lastSeenAt at most once a minute', async () => {
      const browser = await signIn(t.http, await createFirstAdmin(t.http));
      const before = (await stored(browser))!.lastSeenAt;
      await browser.get('/api/v1/me');
      expect((await stored(browser))!.lastSeenAt).toEqual(before);
      const old = new Date(Date.now() - 61_000);
      await sessions.updateOne({ tokenHash: sha256(tokenOf(browser.cookie)) }, { $set: { lastSeenAt: old } });
      await browser.get('/api/v1/me');
      expect(((await stored(browser))!.lastSeenAt as Date).getTime()).toBeGreaterThan(old.getTime() + 50_000);
    });
  });

  describe('the Origin check', () => {
    it("refuses a state-changing request with the cookie from another origin or none (403); the service's own and DASHBOARD_ORIGINS pass", async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      const body = { name: 'From the dashboard', type: 'company' };
      const refused = await t.http.post('/api/v1/accounts', body, {
        headers: { cookie: browser.cookie, origin: 'https://evil.example' },
      });
      expectError(refused, 403, /Origin/);
      expectError(await t.http.post('/api/v1/accounts', body, { headers: { cookie: browser.cookie } }), 403, /Origin/);
      expectError(
        await t.http.post('/api/v1/accounts', body, { headers: { cookie: browser.cookie, origin: 'null' } }),
        403,
        /Origin/,
      );
      expect(
        (await t.http.post('/api/v1/accounts', body, { headers: { cookie: browser.cookie, origin: t.baseUrl } }))
          .status,
      ).toBe(201);
      expect(
        (await t.http.post('/api/v1/accounts', body, { headers: { cookie: browser.cookie, origin: DASHBOARD } }))
          .status,
      ).toBe(201);
      // A read needs no Origin; a bearer token is not asked for one.
      expect(
        (await t.http.get('/api/v1/accounts', { headers: { cookie: browser.cookie, origin: 'https://evil.example' } }))
          .status,
      ).toBe(200);
      expect(
        (
          await t.http.post('/api/v1/accounts', body, {
            token: user.token,
            headers: { origin: 'https://evil.example' },
          })
        ).status,
      ).toBe(201);
    });
  });

  describe('seeing and ending sessions', () => {
    it('lists my sessions, the current one marked, with device, address and last seen; never another user’s', async () => {
      const user = await createFirstAdmin(t.http);
      const other = await createFirstAdmin(t.http);
      await signIn(t.http, other);
      const phone = await signIn(
        t.http,
        user,
        {},
        {
          'user-agent':
            'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
        },
      );
      const laptop = await signIn(t.http, user);
      const res = await laptop.get('/api/v1/sessions');
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(2);
      const [current] = res.body.data.filter((session: { current: boolean }) => session.current);
      const [mobile] = res.body.data.filter((session: { current: boolean }) => !session.current);
      expect(current).toMatchObject({
        ip: '127.0.0.1',
        assurance: 'password',
        lastSeenAt: expect.any(String),
        createdAt: expect.any(String),
      });
      expect(mobile.device).toBe('Safari 17 on iOS');
      expect(Object.keys(current).sort()).toEqual([
        'assurance',
        'createdAt',
        'current',
        'device',
        'id',
        'ip',
        'lastSeenAt',
        'userAgent',
      ]);
      // With a bearer token: the same list, none current.
      const listed = await t.http.get('/api/v1/sessions', { token: user.token });
      expect(listed.body.data.map((session: { current: boolean }) => session.current)).toEqual([false, false]);
      expect((await phone.get('/api/v1/me')).status).toBe(200);
    });

    it("ends one session by id; another user's session is 404 like an unknown one", async () => {
      const user = await createFirstAdmin(t.http);
      const other = await createFirstAdmin(t.http);
      const theirs = await signIn(t.http, other);
      const theirId = (await theirs.get('/api/v1/sessions')).body.data[0].id;
      const phone = await signIn(t.http, user);
      const laptop = await signIn(t.http, user);
      const phoneId = (await phone.get('/api/v1/sessions')).body.data.find(
        (session: { current: boolean }) => session.current,
      ).id;
      expectError(await laptop.delete(`/api/v1/sessions/${theirId}`), 404, 'Session not found');
      expectError(await laptop.delete('/api/v1/sessions/665f1f77bcf86cd799439011'), 404, 'Session not found');
      expectError(await laptop.delete('/api/v1/sessions/not-an-id'), 400);
      expect((await theirs.get('/api/v1/me')).status).toBe(200);
      expect((await laptop.delete(`/api/v1/sessions/${phoneId}`)).status).toBe(200);
      expectError(await phone.get('/api/v1/me'), 401);
      expect((await laptop.get('/api/v1/me')).status).toBe(200);
    });

    it('signs out other devices, and signs out', async () => {
      const user = await createFirstAdmin(t.http);
      const phone = await signIn(t.http, user);
      const tablet = await signIn(t.http, user);
      const laptop = await signIn(t.http, user);
      const others = await laptop.delete('/api/v1/sessions');
      expect(others.body).toEqual({ message: 'Other sessions ended', ended: 2 });
      expectError(await phone.get('/api/v1/me'), 401);
      expectError(await tablet.get('/api/v1/me'), 401);
      const out = await laptop.delete('/api/v1/sessions/current');
      expect(out.status).toBe(200);
      expect(out.headers.getSetCookie()[0]).toMatch(/^sid=;/);
      expectError(await laptop.get('/api/v1/me'), 401);
      expect(await sessions.countDocuments({ userId: (await users.findOne({ email: user.email }))!._id })).toBe(0);
      // Signing out needs a session: a bearer token has none to end.
      expectError(await t.http.delete('/api/v1/sessions/current', { token: user.token }), 403);
    });
  });

  describe('changing the password', () => {
    it('ends every other session, refuses bearer tokens issued before it, and keeps the current session under a new id', async () => {
      const user = await createFirstAdmin(t.http);
      const phone = await signIn(t.http, user);
      const laptop = await signIn(t.http, user);
      const oldCookie = laptop.cookie;
      // Tokens are dated to the second: one issued in an earlier second than the change.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expectError(
        await laptop.put('/api/v1/me/password', {
          currentPassword: 'wrong password',
          password: 'a brand new password',
        }),
        401,
        'The current password is wrong',
      );
      expectError(await laptop.put('/api/v1/me/password', { currentPassword: user.password, password: 'short' }), 400);
      const changed = await laptop.put('/api/v1/me/password', {
        currentPassword: user.password,
        password: 'a brand new password',
      });
      expect(changed.status).toBe(200);
      expect(laptop.cookie).not.toBe(oldCookie);
      expect((await laptop.get('/api/v1/me')).status).toBe(200);
      expectError(await phone.get('/api/v1/me'), 401);
      expectError(await t.http.get('/api/v1/me', { headers: { cookie: oldCookie } }), 401);
      expectError(await t.http.get('/api/v1/me', { token: user.token }), 401);
      expect((await users.findOne({ email: user.email }))!.credentialsChangedAt).toBeInstanceOf(Date);
      expectError(await t.http.post('/api/v1/login', { email: user.email, password: user.password }), 401);
      const fresh = await login(t.http, user.email, 'a brand new password');
      expect((await t.http.get('/api/v1/me', { token: fresh.body.accessToken })).status).toBe(200);
    });

    it('ends the sessions created before credentialsChangedAt, however it was set', async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      await users.updateOne({ email: user.email }, { $set: { credentialsChangedAt: new Date(Date.now() + 1000) } });
      // Another instance learns of it within the few seconds it trusts what it read; this one reads it again after them.
      await new Promise((resolve) => setTimeout(resolve, 5_100));
      expectError(await browser.get('/api/v1/me'), 401);
    });
  });

  describe('TOTP', () => {
    it('enrols, turns on with a code (10 recovery codes, stored hashed), stores the secret encrypted', async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      const enrol = await browser.post('/api/v1/me/mfa/totp');
      expect(enrol.status).toBe(201);
      expect(enrol.body.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(enrol.body.uri).toMatch(/^otpauth:\/\/totp\/Platform:.+\?.*secret=[A-Z2-7]{32}/);
      expectError(await browser.post('/api/v1/me/mfa/totp/verify', { code: '12345' }), 400);
      expectError(
        await browser.post('/api/v1/me/mfa/totp/verify', {
          code: (Number(await totp(enrol.body.secret)) + 1).toString().padStart(6, '0').slice(-6),
        }),
        401,
      );
      const verified = await browser.post('/api/v1/me/mfa/totp/verify', { code: await totp(enrol.body.secret) });
      expect(verified.status).toBe(200);
      expect(verified.body.recoveryCodes).toHaveLength(10);
      expect(new Set(verified.body.recoveryCodes).size).toBe(10);
      const stored = await users.findOne({ email: user.email });
      expect(stored!.totpSecret).toMatch(/^enc:/);
      expect(JSON.stringify(stored)).not.toContain(enrol.body.secret);
      expect(stored!.recoveryCodeHashes).toHaveLength(10);
      expect(JSON.stringify(stored)).not.toContain(verified.body.recoveryCodes[0]);
      expectError(await browser.post('/api/v1/me/mfa/totp'), 409);
      // The user's own answers never show a secret.
      expect((await browser.get('/api/v1/me')).text).not.toMatch(/totp|recovery/i);
    });

    it('asks a user with a factor for a code at sign-in: the code gives assurance mfa, once; a recovery code works once', async () => {
      const user = await createFirstAdmin(t.http);
      const { secret, recoveryCodes } = await enableTotp(await signIn(t.http, user));
      const without = await t.http.post('/api/v1/sessions', { email: user.email, password: user.password });
      expectError(without, 401);
      expect(without.body.code).toBe('mfa_required');
      const code = await totp(secret, 1);
      const withCode = await signIn(t.http, user, { totp: code });
      expect(
        (await withCode.get('/api/v1/sessions')).body.data.find((session: { current: boolean }) => session.current)
          .assurance,
      ).toBe('mfa');
      // The same code again, within its window: refused.
      expectError(
        await t.http.post('/api/v1/sessions', { email: user.email, password: user.password, totp: code }),
        401,
        'Invalid or already used code',
      );
      expect((await signIn(t.http, user, { recoveryCode: recoveryCodes[0].toUpperCase() })).cookie).toBeTruthy();
      expectError(
        await t.http.post('/api/v1/sessions', {
          email: user.email,
          password: user.password,
          recoveryCode: recoveryCodes[0],
        }),
        401,
      );
      expect((await users.findOne({ email: user.email }))!.recoveryCodeHashes).toHaveLength(9);
      expectError(
        await t.http.post('/api/v1/sessions', {
          email: user.email,
          password: user.password,
          totp: code,
          recoveryCode: recoveryCodes[1],
        }),
        400,
      );
    });

    it('accepts one code sent many times at once exactly once', async () => {
      const user = await createFirstAdmin(t.http);
      const { secret } = await enableTotp(await signIn(t.http, user));
      const code = await totp(secret, 0);
      const answers = await Promise.all(
        // Five: the login limit of the pair (LOGIN_MAX_FAILURES, 5) would answer a sixth 429.
        Array.from({ length: 5 }, () =>
          t.http.post('/api/v1/sessions', { email: user.email, password: user.password, totp: code }),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([201, 401, 401, 401, 401]);
    });

    it('accepts one recovery code sent many times at once exactly once', async () => {
      const user = await createFirstAdmin(t.http);
      const { recoveryCodes } = await enableTotp(await signIn(t.http, user));
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          t.http.post('/api/v1/sessions', {
            email: user.email,
            password: user.password,
            recoveryCode: recoveryCodes[3],
          }),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([201, 401, 401, 401, 401]);
    });

    it('turns off with a fresh code only', async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      const { secret } = await enableTotp(browser);
      // The code that turned it on (step -1) is used: refused.
      expectError(await browser.delete('/api/v1/me/mfa/totp', { code: await totp(secret, -1) }), 401);
      expect((await browser.delete('/api/v1/me/mfa/totp', { code: await totp(secret, 0) })).status).toBe(200);
      expectError(await browser.delete('/api/v1/me/mfa/totp', { code: await totp(secret, 1) }), 409, 'TOTP is not on');
      expect((await signIn(t.http, user)).cookie).toBeTruthy();
    });
  });

  describe('an account that requires a second factor', () => {
    let owner: TestUser;
    let member: TestUser;
    let ownerSecret: string;
    let ownerRecoveryCodes: string[];
    /** The owner's token from a login with a code: the only kind their account's data takes once it requires a factor. */
    let ownerToken: string;

    beforeAll(async () => {
      owner = await createFirstAdmin(t.http);
      member = await createUser(t.http, 'developer', owner.token);
    });

    it('only its owner turns it on, and only with a factor of their own', async () => {
      const admin = await createUser(t.http, 'admin', owner.token);
      expectError(
        await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: true }, { token: admin.token }),
        403,
      );
      expectError(
        await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: true }, { token: owner.token }),
        409,
      );
      expectError(
        await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: 'yes' }, { token: owner.token }),
        400,
      );
      ({ secret: ownerSecret, recoveryCodes: ownerRecoveryCodes } = await enableTotp(await signIn(t.http, owner)));
      const res = await t.http.patch(
        `/api/v1/accounts/${owner.accountId}`,
        { requireMfa: true },
        { token: owner.token },
      );
      expect(res.status).toBe(200);
      expect(res.body.data.requireMfa).toBe(true);
      // That token proved a password only (it was issued before the factor): no longer the account's data.
      expect((await t.http.get(`/api/v1/accounts/${owner.accountId}/members`, { token: owner.token })).body.code).toBe(
        'mfa_required',
      );
      ownerToken = (
        await t.http.post('/api/v1/login', {
          email: owner.email,
          password: owner.password,
          recoveryCode: ownerRecoveryCodes[0],
        })
      ).body.accessToken;
      expect((await t.http.get(`/api/v1/accounts/${owner.accountId}/members`, { token: ownerToken })).status).toBe(200);
    });

    it('refuses password-only sessions and tokens its data (403 mfa_required); mfa sessions and tokens pass', async () => {
      const browser = await signIn(t.http, member);
      const members = await browser.get(`/api/v1/accounts/${owner.accountId}/members`);
      expectError(members, 403);
      expect(members.body.code).toBe('mfa_required');
      expect((await browser.get('/v1/customers')).body.code).toBe('mfa_required');
      // Not the account's data: setting up a factor stays open.
      expect((await browser.get('/api/v1/sessions')).status).toBe(200);
      // A token from the password alone, as the session: the same refusal.
      const byToken = await t.http.get(`/api/v1/accounts/${owner.accountId}/members`, { token: member.token });
      expectError(byToken, 403);
      expect(byToken.body.code).toBe('mfa_required');
      expect((await t.http.get('/v1/customers', { token: member.token })).body.code).toBe('mfa_required');
      const { secret } = await enableTotp(browser);
      // The session that turned TOTP on proved it: it continues as mfa.
      expect((await browser.get(`/api/v1/accounts/${owner.accountId}/members`)).status).toBe(200);
      const strong = await signIn(t.http, member, { totp: await totp(secret, 0) });
      expect((await strong.get(`/api/v1/accounts/${owner.accountId}/members`)).status).toBe(200);
      expect((await strong.get('/v1/customers')).status).toBe(200);
      const token = (
        await t.http.post('/api/v1/login', {
          email: member.email,
          password: member.password,
          totp: await totp(secret, 1),
        })
      ).body.accessToken;
      expect((await t.http.get('/v1/customers', { token })).status).toBe(200);
    });

    it('step-up: removing a member, rolling or revoking a key and a refund by a session need the factor proven within STEP_UP_MINUTES (10)', async () => {
      const leaving = await createUser(t.http, 'developer', ownerToken);
      const browser = await signIn(t.http, owner, { recoveryCode: ownerRecoveryCodes[1] });
      await sessions.updateOne(
        { tokenHash: sha256(tokenOf(browser.cookie)) },
        { $set: { mfaAt: new Date(Date.now() - 11 * 60_000) } },
      );
      const refused = await browser.delete(`/api/v1/accounts/${owner.accountId}/members/${leaving.id}`);
      expectError(refused, 403);
      expect(refused.body.code).toBe('step_up_required');
      const keys = `/api/v1/platform/projects/${owner.projectId}/keys`;
      const key = (await t.http.post(keys, { name: 'step-up' }, { token: ownerToken })).body.data.id;
      expect((await browser.post(`${keys}/${key}/roll`, {})).body.code).toBe('step_up_required');
      expect((await browser.delete(`${keys}/${key}`)).body.code).toBe('step_up_required');
      const customer = (await t.http.post('/v1/customers', { email: uniqueEmail('payer') }, { token: ownerToken })).body
        .data.id;
      await t.http.post(
        '/v1/cards',
        { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
        { token: ownerToken },
      );
      const payment = (
        await t.http.post(
          '/api/v1/payments',
          { amount: 10, currency: 'usd', customer, confirm: true },
          { token: ownerToken },
        )
      ).body.id;
      expect((await browser.post(`/api/v1/payments/${payment}/refund`, { amount: 1 })).body.code).toBe(
        'step_up_required',
      );
      const before = browser.cookie;
      expectError(await browser.post('/api/v1/sessions/current/step-up', { totp: '000000' }), 401);
      const raised = await browser.post('/api/v1/sessions/current/step-up', { totp: await totp(ownerSecret, 0) });
      expect(raised.status).toBe(200);
      expect(raised.body.data).toMatchObject({ assurance: 'mfa', current: true });
      expect(browser.cookie).not.toBe(before);
      expectError(await t.http.get('/api/v1/me', { headers: { cookie: before } }), 401);
      expect((await browser.delete(`/api/v1/accounts/${owner.accountId}/members/${leaving.id}`)).status).toBe(200);
      expect((await browser.post(`/api/v1/payments/${payment}/refund`, { amount: 1 })).status).toBe(200);
      expect((await browser.post(`${keys}/${key}/roll`, {})).status).toBe(201);
    });
  });

  it('step-up asks a user without a factor for a fresh password, and a bearer token as a session', async () => {
    const owner = await createFirstAdmin(t.http);
    const first = await createUser(t.http, 'developer', owner.token);
    const second = await createUser(t.http, 'developer', owner.token);
    const third = await createUser(t.http, 'developer', owner.token);
    const browser = await signIn(t.http, owner);
    // Signed in with the password just now: fresh.
    expect((await browser.delete(`/api/v1/accounts/${owner.accountId}/members/${first.id}`)).status).toBe(200);
    await sessions.updateOne(
      { tokenHash: sha256(tokenOf(browser.cookie)) },
      { $set: { passwordAt: new Date(Date.now() - 11 * 60_000) } },
    );
    const stale = await browser.delete(`/api/v1/accounts/${owner.accountId}/members/${second.id}`);
    expect(stale.body).toMatchObject({
      statusCode: 403,
      code: 'step_up_required',
      message: expect.stringMatching(/password/),
    });
    expectError(await browser.post('/api/v1/sessions/current/step-up', { password: 'not the password' }), 401);
    expectError(await browser.post('/api/v1/sessions/current/step-up', {}), 409);
    expect((await browser.post('/api/v1/sessions/current/step-up', { password: owner.password })).status).toBe(200);
    expect((await browser.delete(`/api/v1/accounts/${owner.accountId}/members/${second.id}`)).status).toBe(200);
    await enableTotp(browser);
    // A factor now: the token from the password alone, issued before it, is asked; the session proved the factor as it turned it on.
    expect(
      (await t.http.delete(`/api/v1/accounts/${owner.accountId}/members/${third.id}`, { token: owner.token })).body
        .code,
    ).toBe('step_up_required');
    expect((await browser.delete(`/api/v1/accounts/${owner.accountId}/members/${third.id}`)).status).toBe(200);
  });

  describe('abuse', () => {
    it("counts wrong passwords and codes toward the login limits; a stranger's guesses do not lock the user out where they sign in", async () => {
      const limited = await createTestApp({
        LOGIN_MAX_FAILURES: '3',
        LOGIN_MAX_FAILURES_PER_EMAIL: '4',
        TRUST_PROXY: '127.0.0.1',
      });
      const from = (address: string) => ({ 'x-forwarded-for': address });
      try {
        const user = await createFirstAdmin(limited.http);
        const home = from('198.51.100.7');
        const { secret } = await enableTotp(await signIn(limited.http, user, {}, home));
        const stranger = from('203.0.113.9');
        const guesses = [];
        for (let i = 0; i < 4; i++) {
          guesses.push(
            (
              await limited.http.post(
                '/api/v1/sessions',
                { email: user.email, password: user.password, totp: String(100000 + i) },
                { headers: stranger },
              )
            ).status,
          );
        }
        expect(guesses).toEqual([401, 401, 401, 429]);
        const blocked = await limited.http.post(
          '/api/v1/sessions',
          { email: user.email, password: user.password, totp: await totp(secret, 0) },
          { headers: stranger },
        );
        expectError(blocked, 429);
        expect(blocked.headers.get('retry-after')).toBeTruthy();
        // Past the email's limit: refused from any other new address too, answered alike whether the password was right.
        const elsewhere = await limited.http.post(
          '/api/v1/sessions',
          { email: user.email, password: 'not the password' },
          { headers: from('203.0.113.10') },
        );
        expectError(elsewhere, 429);
        // From where the user signed in before: not locked out.
        expect((await signIn(limited.http, user, { totp: await totp(secret, 0) }, home)).cookie).toBeTruthy();
      } finally {
        await limited.close();
      }
    });
  });

  it('a request with the session cookie costs at most one database command more than with a bearer token', async () => {
    const owner = await createFirstAdmin(t.http);
    const browser = await signIn(t.http, owner);
    const path = `/api/v1/accounts/${owner.accountId}/members`;
    // Warm both ways (the credentials of the user are read once per few seconds and instance).
    await t.http.get(path, { token: owner.token });
    await browser.get(path);
    const { count: bearer } = await commandsOf(t, () => t.http.get(path, { token: owner.token }));
    const { count: cookie } = await commandsOf(t, () => browser.get(path));
    expect(bearer).toBeGreaterThan(0);
    expect(cookie).toBeLessThanOrEqual(bearer + 1);
  });
});
