import { JwtService } from '@nestjs/jwt';
import * as bcrypt from 'bcrypt';
import { createHash, randomBytes } from 'node:crypto';
import { createFirstAdmin, createUser, type TestUser } from '../support/auth';
import { pollUntil } from '../support/deadline';
import { expectError } from '../support/expect-error';
import { MailServer } from '../support/mail-server';
import { addPasskey, SoftwareAuthenticator } from '../support/passkeys';
import { Browser, enableTotp, sessionCookie, signIn, totp } from '../support/sessions';
import { CredentialsCheck } from '../../src/identity/passwords/credentials-check';
import { UsersService } from '../../src/identity/users/users.service';
import { createTestApp, TEST_JWT_SECRET, type TestApp } from '../support/test-app';
import { testDatabaseUri } from '../support/test-database';

const STALE = () => new Date(Date.now() - 11 * 60_000);

/**
 * The sign-in paths beside the guarded ones (issue 48's "Why"): each sequence here went through on
 * the old code. One strength on every path: a password login, a session, a passkey; tokens and
 * sessions alike.
 */
describe('sign-in side doors', () => {
  let t: TestApp;
  const mail = new MailServer();
  const sessions = () => t.db.collection('sessions');
  const from = (address: string) => ({ 'x-forwarded-for': address });

  beforeAll(async () => {
    // The pair's password limit out of the way: the code limit alone is what these tests count.
    t = await createTestApp({
      TRUST_PROXY: '127.0.0.1',
      LOGIN_MAX_FAILURES: '1000',
      LOGIN_MAX_FAILURES_PER_EMAIL: '1000',
    });
  });
  afterAll(() => t.close());

  const login = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.http.post('/api/v1/login', body, { headers });
  /** Moves what the browser's session proved into the past. */
  const age = async (browser: Browser, fields: Record<string, Date>) => {
    const tokenHash = createHash('sha256').update(browser.cookie.split('=')[1]).digest('hex');
    expect((await sessions().updateOne({ tokenHash }, { $set: fields })).matchedCount).toBe(1);
  };
  /** A token as the service signs them, issued `ms` ago with the given assurance. */
  const tokenIssued = (user: TestUser, assurance: 'password' | 'mfa', msAgo: number) =>
    new JwtService({ secret: TEST_JWT_SECRET }).sign(
      { sub: user.id, acc: user.accountId, asr: assurance, ims: Date.now() - msAgo },
      { expiresIn: 3600 },
    );

  describe('the password alone defeats neither a second factor nor requireMfa (POST /api/v1/login)', () => {
    let owner: TestUser;
    let secret: string;
    let recoveryCodes: string[];
    let member: TestUser;

    beforeAll(async () => {
      owner = await createFirstAdmin(t.http);
      member = await createUser(t.http, 'developer', owner.token);
      ({ secret, recoveryCodes } = await enableTotp(await signIn(t.http, owner)));
      expect(
        (await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: true }, { token: owner.token }))
          .status,
      ).toBe(200);
    });

    it('answers 401 mfa_required to the password of a user with TOTP, as POST /api/v1/sessions does', async () => {
      const res = await login({ email: owner.email, password: owner.password });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        statusCode: 401,
        error: 'Unauthorized',
        code: 'mfa_required',
        message: expect.stringMatching(/second factor/),
      });
      expect(res.body.accessToken).toBeUndefined();
      const session = await t.http.post('/api/v1/sessions', { email: owner.email, password: owner.password });
      expect(session.body.code).toBe('mfa_required');
      expectError(
        await login({ email: owner.email, password: owner.password, totp: '000000' }),
        401,
        'Invalid or already used code',
      );
      expectError(await login({ email: owner.email, password: owner.password, totp: '12345' }), 400);
      expectError(
        await login({ email: owner.email, password: owner.password, totp: '123456', recoveryCode: 'abcde-fghij' }),
        400,
      );
    });

    it('with a valid code: the same answer as before, a token with assurance mfa that reads the account and makes keys', async () => {
      const res = await login({ email: owner.email, password: owner.password, totp: await totp(secret, 0) });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'data', 'message']);
      expect(res.body).toMatchObject({
        message: 'Login successful',
        data: { user: { id: owner.id }, account: { id: owner.accountId, requireMfa: true } },
      });
      const token = res.body.accessToken;
      expect((await t.http.get('/v1/customers', { token })).status).toBe(200);
      expect(
        (await t.http.post(`/api/v1/platform/projects/${owner.projectId}/keys`, { name: 'fresh' }, { token })).status,
      ).toBe(201);
      const recovered = await login({ email: owner.email, password: owner.password, recoveryCode: recoveryCodes[0] });
      expect(recovered.status).toBe(200);
      expect((await t.http.get('/v1/customers', { token: recovered.body.accessToken })).status).toBe(200);
    });

    it("the owner's old password-only token no longer reads the account, rolls a key or turns requireMfa off", async () => {
      const keys = `/api/v1/platform/projects/${owner.projectId}/keys`;
      const strong = (await login({ email: owner.email, password: owner.password, recoveryCode: recoveryCodes[1] }))
        .body.accessToken;
      const key = (await t.http.post(keys, { name: 'to roll' }, { token: strong })).body.data.id;
      expect((await t.http.get('/v1/customers', { token: owner.token })).body.code).toBe('mfa_required');
      expect((await t.http.post(keys, { name: 'secret' }, { token: owner.token })).body.code).toMatch(
        /mfa_required|step_up_required/,
      );
      expect((await t.http.post(`${keys}/${key}/roll`, {}, { token: owner.token })).body.code).toMatch(
        /mfa_required|step_up_required/,
      );
      const off = await t.http.patch(
        `/api/v1/accounts/${owner.accountId}`,
        { requireMfa: false },
        { token: owner.token },
      );
      expect(off.status).toBe(403);
      expect((await t.http.get(`/api/v1/accounts/${owner.accountId}`, { token: strong })).body.data.requireMfa).toBe(
        true,
      );
    });

    it('a member with no factor gets a token that, as their session, reaches none of the account’s data', async () => {
      const res = await login({ email: member.email, password: member.password });
      expect(res.status).toBe(200);
      const token = res.body.accessToken;
      const customers = await t.http.get('/v1/customers', { token });
      expectError(customers, 403);
      expect(customers.body.code).toBe('mfa_required');
      expect((await t.http.get(`/api/v1/accounts/${owner.accountId}/audit-log`, { token })).body.code).toBe(
        'mfa_required',
      );
      // Setting up a factor stays open to it.
      expect((await t.http.get('/api/v1/me/mfa', { token })).status).toBe(200);
    });

    it('a user whose only factor is a passkey gets no token from the password', async () => {
      const user = await createFirstAdmin(t.http);
      await addPasskey(await signIn(t.http, user), new SoftwareAuthenticator());
      expect((await login({ email: user.email, password: user.password })).body.code).toBe('mfa_required');
    });

    it('a login from a new address sends the new-sign-in mail, as a session does', async () => {
      const user = await createFirstAdmin(t.http);
      expect((await login({ email: user.email, password: user.password }, from('198.51.100.23'))).status).toBe(200);
      // The sign-up's own sign-in (from the test's address) sent one too: the one naming this address is looked for.
      const named = async () => {
        for (const summary of await mail.listTo(user.email)) {
          if (summary.subject !== 'New sign-in to your account') continue;
          if ((await mail.read(summary.id)).text.includes('Address: 198.51.100.23')) return true;
        }
        return false;
      };
      expect(await pollUntil(named, 10_000)).toBe(true);
    });
  });

  describe('a new factor needs proof of the existing one (step-up on factors and keys)', () => {
    it('a password-only token issued before a passkey can neither register another passkey nor remove one', async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      const mine = await addPasskey(browser, new SoftwareAuthenticator());
      const options = await t.http.post('/api/v1/me/passkeys/options', undefined, { token: user.token });
      expectError(options, 403);
      expect(options.body.code).toBe('step_up_required');
      const attacker = new SoftwareAuthenticator();
      const register = await t.http.post(
        '/api/v1/me/passkeys',
        {
          name: 'Mine now',
          credential: attacker.create({
            challenge: randomBytes(32).toString('base64url'),
            rp: {},
            user: { id: user.id },
          }),
        },
        { token: user.token },
      );
      expect(register.body.code).toBe('step_up_required');
      expect((await t.http.delete(`/api/v1/me/passkeys/${mine.id}`, { token: user.token })).body.code).toBe(
        'step_up_required',
      );
      expect((await browser.get('/api/v1/me/passkeys')).body.data).toHaveLength(1);
    });

    it('a password session made before a passkey was enrolled cannot delete it', async () => {
      const user = await createFirstAdmin(t.http);
      const early = await signIn(t.http, user);
      const mine = await addPasskey(await signIn(t.http, user), new SoftwareAuthenticator());
      const removed = await early.delete(`/api/v1/me/passkeys/${mine.id}`);
      expectError(removed, 403);
      expect(removed.body.code).toBe('step_up_required');
      expect((await early.get('/api/v1/me/passkeys')).body.data).toHaveLength(1);
    });

    it('an mfa session older than STEP_UP_MINUTES registers no passkey, turns no requireMfa off, makes no key; a fresh step-up does', async () => {
      const owner = await createFirstAdmin(t.http);
      const { secret } = await enableTotp(await signIn(t.http, owner));
      const strong = (await login({ email: owner.email, password: owner.password, totp: await totp(secret, 0) })).body
        .accessToken;
      expect(
        (await t.http.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: true }, { token: strong })).status,
      ).toBe(200);
      const browser = await signIn(t.http, owner, { totp: await totp(secret, 1) });
      await age(browser, { mfaAt: STALE(), passwordAt: STALE() });
      const keys = `/api/v1/platform/projects/${owner.projectId}/keys`;
      for (const res of [
        await browser.post('/api/v1/me/passkeys/options'),
        await browser.patch(`/api/v1/accounts/${owner.accountId}`, { requireMfa: false }),
        await browser.post(keys, { name: 'side door' }),
        await browser.put('/api/v1/me/password', {
          currentPassword: owner.password,
          password: 'another long password',
        }),
        await browser.post(`/api/v1/accounts/${owner.accountId}/ownership`, { userId: owner.id }),
        await browser.delete('/api/v1/me/mfa/totp', { code: '123456' }),
      ]) {
        expectError(res, 403);
        expect(res.body.code).toBe('step_up_required');
      }
      // Renaming is no step-up action; the requirement is still on.
      expect((await browser.patch(`/api/v1/accounts/${owner.accountId}`, { name: 'Renamed' })).status).toBe(200);
      expect((await browser.get(`/api/v1/accounts/${owner.accountId}`)).body.data.requireMfa).toBe(true);
      // A password proves nothing more for a user with a factor.
      expect((await browser.post('/api/v1/sessions/current/step-up', { password: owner.password })).body.code).toBe(
        'mfa_required',
      );
    });

    it('step-up is not bypassed by making a key: a stale mfa session is refused the key as it is the refund', async () => {
      const owner = await createFirstAdmin(t.http);
      const { secret } = await enableTotp(await signIn(t.http, owner));
      const browser = await signIn(t.http, owner, { totp: await totp(secret, 0) });
      await age(browser, { mfaAt: STALE(), passwordAt: STALE() });
      const keys = `/api/v1/platform/projects/${owner.projectId}/keys`;
      const made = await browser.post(keys, { name: 'side door' });
      expectError(made, 403);
      expect(made.body.code).toBe('step_up_required');
      // A bearer token is asked as a session is: an mfa token issued before STEP_UP_MINUTES makes no key, a fresh one does.
      const stale = await t.http.post(keys, { name: 'side door' }, { token: tokenIssued(owner, 'mfa', 11 * 60_000) });
      expectError(stale, 403);
      expect(stale.body.code).toBe('step_up_required');
      expect(await t.db.collection('api_keys').countDocuments({ name: 'side door' })).toBe(0);
      expect((await t.http.post(keys, { name: 'fresh' }, { token: tokenIssued(owner, 'mfa', 0) })).status).toBe(201);
    });

    it('a password reset removes no factor and grants no mfa, and ends every session and token', async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      const authenticator = new SoftwareAuthenticator();
      await addPasskey(browser, authenticator);
      expect((await t.http.post('/api/v1/password-resets', { email: user.email })).status).toBe(202);
      const code = await mail.tokenFrom(user.email, /reset your password/i, '/reset-password');
      expect((await t.http.post(`/api/v1/password-resets/${code}`, { password: 'a new long password' })).status).toBe(
        200,
      );
      expectError(await browser.get('/api/v1/me'), 401);
      expectError(await t.http.get('/api/v1/me', { token: user.token }), 401);
      expect((await login({ email: user.email, password: 'a new long password' })).body.code).toBe('mfa_required');
      const options = (await t.http.post('/api/v1/sessions/passkey/options')).body;
      const signedIn = await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(options) });
      expect(signedIn.status).toBe(201);
      expect((await new Browser(t.http, sessionCookie(signedIn)!).get('/api/v1/me/passkeys')).body.data).toHaveLength(
        1,
      );
    });
  });

  describe('codes are throttled on their own', () => {
    it('wrong codes count per user whatever else succeeds: the sixth in the window is 429 with Retry-After, on login as on sessions', async () => {
      const user = await createFirstAdmin(t.http);
      const { secret } = await enableTotp(await signIn(t.http, user));
      const wrong = async (i: number) =>
        (await login({ email: user.email, password: user.password, totp: String(200000 + i) })).status;
      const answers = [await wrong(1), await wrong(2), await wrong(3)];
      // A correct password (the answer asks for the code) clears nothing; nor does a signed-in session.
      expect((await login({ email: user.email, password: user.password })).body.code).toBe('mfa_required');
      await signIn(t.http, await createFirstAdmin(t.http));
      answers.push(await wrong(4), await wrong(5));
      const limited = await t.http.post('/api/v1/sessions', {
        email: user.email,
        password: user.password,
        totp: '299999',
      });
      expect(answers).toEqual([401, 401, 401, 401, 401]);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Beyond the limit even the right code waits.
      expect((await login({ email: user.email, password: user.password, totp: await totp(secret, 0) })).status).toBe(
        429,
      );
    });

    it('through POST /api/v1/sessions/current/step-up as well', async () => {
      const user = await createFirstAdmin(t.http);
      const { recoveryCodes } = await enableTotp(await signIn(t.http, user));
      const browser = await signIn(t.http, user, { recoveryCode: recoveryCodes[0] });
      const answers = [];
      for (let i = 0; i < 5; i++)
        answers.push((await browser.post('/api/v1/sessions/current/step-up', { totp: String(300000 + i) })).status);
      expect(answers).toEqual([401, 401, 401, 401, 401]);
      const limited = await browser.post('/api/v1/sessions/current/step-up', { recoveryCode: 'aaaaa-bbbbb' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('a code of a step at or before the last accepted one is refused (RFC 6238 §5.2)', async () => {
      const user = await createFirstAdmin(t.http);
      const { secret } = await enableTotp(await signIn(t.http, user));
      const earlier = await totp(secret, 0);
      const later = await totp(secret, 1);
      expect((await signIn(t.http, user, { totp: later })).cookie).toBeTruthy();
      expectError(
        await t.http.post('/api/v1/sessions', { email: user.email, password: user.password, totp: earlier }),
        401,
        'Invalid or already used code',
      );
    });
  });

  describe('sessions', () => {
    it('over https the cookie is __Host-sid (Secure, Path=/, no Domain); a plain sid is not read there', async () => {
      const user = await createFirstAdmin(t.http);
      const https = { 'x-forwarded-proto': 'https' };
      const res = await t.http.post(
        '/api/v1/sessions',
        { email: user.email, password: user.password },
        { headers: https },
      );
      expect(res.status).toBe(201);
      const [header] = res.headers.getSetCookie();
      expect(header).toMatch(/^__Host-sid=[A-Za-z0-9_-]{43};/);
      expect(header).toMatch(/; Secure/);
      expect(header).toMatch(/; Path=\//);
      expect(header).not.toMatch(/Domain=/i);
      const token = sessionCookie(res)!.split('=')[1];
      expect((await t.http.get('/api/v1/me', { headers: { ...https, cookie: `__Host-sid=${token}` } })).status).toBe(
        200,
      );
      expectError(await t.http.get('/api/v1/me', { headers: { ...https, cookie: `sid=${token}` } }), 401);
      // A planted sid beside the real one changes nothing: the __Host- one is read.
      const planted = (await signIn(t.http, await createFirstAdmin(t.http))).cookie.split('=')[1];
      const me = await t.http.get('/api/v1/me', {
        headers: { ...https, cookie: `sid=${planted}; __Host-sid=${token}` },
      });
      expect(me.body.data.user.id).toBe(user.id);
    });

    it('the Origin check compares with PUBLIC_URL, not with X-Forwarded-Host', async () => {
      const user = await createFirstAdmin(t.http);
      const https = { 'x-forwarded-proto': 'https' };
      const cookie = sessionCookie(
        await t.http.post('/api/v1/sessions', { email: user.email, password: user.password }, { headers: https }),
      )!;
      const forged = await t.http.post(
        '/api/v1/accounts',
        { name: 'Forged', type: 'company' },
        {
          headers: { ...https, cookie, origin: 'https://evil.example', 'x-forwarded-host': 'evil.example' },
        },
      );
      expectError(forged, 403, /Origin/);
      // PUBLIC_URL (the default, http://localhost:3000) is the service's own origin, whatever host the request names.
      const own = await t.http.post(
        '/api/v1/accounts',
        { name: 'Own', type: 'company' },
        { headers: { ...https, cookie, origin: 'http://localhost:3000' } },
      );
      expect(own.status).toBe(201);
    });

    it('a token issued in the same second before a password change is refused at once', async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      const token = (await login({ email: user.email, password: user.password })).body.accessToken;
      expect(
        (await browser.put('/api/v1/me/password', { currentPassword: user.password, password: 'a brand new password' }))
          .status,
      ).toBe(200);
      expectError(await t.http.get('/api/v1/me', { token }), 401);
      expect((await browser.get('/api/v1/me')).status).toBe(200);
    });

    it('a login that read the old password while a reset ran gets a token that the reset ends too', async () => {
      const user = await createFirstAdmin(t.http);
      const users = t.app.get(UsersService);
      const signIns = t.app.get(CredentialsCheck);
      // The reset lands after the login checked the old password and before it signs the token (two
      // bcrypt times wide in practice), the reset's time taken before the token's.
      const signedIn = signIns.signedIn.bind(signIns);
      jest.spyOn(signIns, 'signedIn').mockImplementationOnce(async (signedInUser, origin) => {
        await users.setPassword(
          String(signedInUser._id),
          await bcrypt.hash('a reset password', 4),
          new Date(Date.now() - 1_000),
        );
        return signedIn(signedInUser, origin);
      });
      const res = await login({ email: user.email, password: user.password });
      expect(res.status).toBe(200);
      expectError(await t.http.get('/api/v1/me', { token: res.body.accessToken }), 401);
      // A login after the reset, with the new password, holds.
      const after = await login({ email: user.email, password: 'a reset password' });
      expect((await t.http.get('/api/v1/me', { token: after.body.accessToken })).status).toBe(200);
    });

    it('a session opened by a sign-in that read the old password while a reset ran ends with the reset', async () => {
      const user = await createFirstAdmin(t.http);
      const users = t.app.get(UsersService);
      const signIns = t.app.get(CredentialsCheck);
      const signedIn = signIns.signedIn.bind(signIns);
      jest.spyOn(signIns, 'signedIn').mockImplementationOnce(async (signedInUser, origin) => {
        await users.setPassword(
          String(signedInUser._id),
          await bcrypt.hash('another reset password', 4),
          new Date(Date.now() - 1_000),
        );
        await t.db.collection('sessions').deleteMany({ userId: signedInUser._id });
        return signedIn(signedInUser, origin);
      });
      const res = await t.http.post('/api/v1/sessions', { email: user.email, password: user.password });
      expect(res.status).toBe(201);
      expectError(await t.http.get('/api/v1/me', { headers: { cookie: sessionCookie(res)! } }), 401);
    });

    it('removing a factor ends every other session and token at once; the session that removed it continues', async () => {
      const user = await createFirstAdmin(t.http);
      const browser = await signIn(t.http, user);
      const authenticator = new SoftwareAuthenticator();
      const key = await addPasskey(browser, authenticator);
      const options = (await t.http.post('/api/v1/sessions/passkey/options')).body;
      const other = new Browser(
        t.http,
        sessionCookie(await t.http.post('/api/v1/sessions/passkey', { credential: authenticator.get(options) }))!,
      );
      expect((await other.get('/api/v1/me')).status).toBe(200);
      expect((await t.http.get('/api/v1/me', { token: user.token })).status).toBe(200);
      const before = browser.cookie;
      expect((await browser.delete(`/api/v1/me/passkeys/${key.id}`)).status).toBe(200);
      expect(browser.cookie).not.toBe(before);
      expect((await browser.get('/api/v1/me')).status).toBe(200);
      expectError(await other.get('/api/v1/me'), 401);
      expectError(await t.http.get('/api/v1/me', { token: user.token }), 401);
    });
  });

  describe('on every instance at once', () => {
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      const uri = testDatabaseUri(`test_${randomBytes(6).toString('hex')}`);
      a = await createTestApp({ MONGODB_URI: uri });
      b = await createTestApp({ MONGODB_URI: uri });
    });
    afterAll(async () => {
      await b.app.close();
      await a.close();
    });

    it('a password reset on one instance ends the sessions and tokens another has just seen', async () => {
      const user = await createFirstAdmin(a.http);
      const browser = await signIn(a.http, user);
      const onB = new Browser(b.http, browser.cookie, b.baseUrl);
      // B reads (and remembers) the user's credentials.
      expect((await onB.get('/api/v1/me')).status).toBe(200);
      expect((await b.http.get('/api/v1/me', { token: user.token })).status).toBe(200);
      await a.http.post('/api/v1/password-resets', { email: user.email });
      const code = await mail.tokenFrom(user.email, /reset your password/i, '/reset-password');
      expect((await a.http.post(`/api/v1/password-resets/${code}`, { password: 'a new long password' })).status).toBe(
        200,
      );
      expectError(await onB.get('/api/v1/me'), 401);
      expectError(await b.http.get('/api/v1/me', { token: user.token }), 401);
    });
  });
});
