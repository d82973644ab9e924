import { createHmac } from 'node:crypto';
import { createFirstAdmin, createUser, signupBody, uniqueEmail } from '../support/auth';
import { expectError, expectValidationError } from '../support/expect-error';
import { createTestApp, TEST_JWT_SECRET, TestApp } from '../support/test-app';

const USER_FIELDS = [
  'address',
  'avatar',
  'createdAt',
  'defaultCompany',
  'email',
  'emailVerifiedAt',
  'firstName',
  'id',
  'lastName',
  'phoneNumber',
  'role',
  'status',
  'updatedAt',
  'userName',
].sort();

function base64url(value: object | string): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

function signToken(payload: object, secret = TEST_JWT_SECRET, header: object = { alg: 'HS256', typ: 'JWT' }): string {
  const unsigned = `${base64url(header)}.${base64url(payload)}`;
  const signature = createHmac('sha256', secret).update(unsigned).digest('base64url');
  return `${unsigned}.${signature}`;
}

describe('authentication and roles', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '1000' });
  });
  afterAll(() => t.close());

  describe('signup', () => {
    it('lets every public signup take any role in an account of its own, and see only that account', async () => {
      const first = await t.http.post('/api/v1/singup', signupBody({ role: 'admin', email: uniqueEmail('first') }));
      expect(first.status).toBe(201);
      expect(first.body.message).toBe('User created');
      expect(first.body.data.user.role).toBe('admin');
      const second = await t.http.post('/api/v1/singup', signupBody({ role: 'admin', email: uniqueEmail('second') }));
      expect(second.status).toBe(201);
      expect(second.body.data.user.role).toBe('admin');
      const manager = await t.http.post('/api/v1/signup', signupBody({ role: 'manager' }));
      expect(manager.status).toBe(201);

      const accounts = [first, second, manager].map((res) => res.body.data.account.id);
      expect(new Set(accounts).size).toBe(3);
      for (const res of [first, second, manager]) {
        expect(res.body.data.user.defaultCompany).toBe(res.body.data.account.id);
        expect(res.body.data.account).toMatchObject({ owner: true, type: 'developer', name: 'Ada Lovelace' });
      }
    });

    it('returns the contract user object without password or hash, with defaults', async () => {
      const body = signupBody({ email: uniqueEmail('shape') });
      const res = await t.http.post('/api/v1/singup', body);
      expect(res.status).toBe(201);
      const user = res.body.data.user;
      expect(Object.keys(user).sort()).toEqual(USER_FIELDS);
      expect(user).toMatchObject({
        firstName: 'Ada',
        lastName: 'Lovelace',
        userName: '',
        email: body.email,
        role: 'developer',
        status: 'active',
        phoneNumber: null,
        avatar: null,
        address: null,
        defaultCompany: res.body.data.account.id,
        emailVerifiedAt: null,
      });
      expect(Object.keys(res.body.data.account).sort()).toEqual([
        'createdAt',
        'defaultProjectId',
        'id',
        'name',
        'owner',
        'requireMfa',
        'role',
        'type',
      ]);
      expect(user.id).toMatch(/^[0-9a-f]{24}$/);
      expect(new Date(user.createdAt).toISOString()).toBe(user.createdAt);
      expect(res.text).not.toContain(body.password);
      expect(res.text).not.toMatch(/passwordHash|\$2[aby]\$/);
    });

    it('keeps optional profile fields and ignores client timestamps', async () => {
      const res = await t.http.post(
        '/api/v1/signup',
        signupBody({
          phoneNumber: 5551234567,
          address: { city: 'London', postalCode: 'NW1 6XE' },
          avatar: 'https://example.com/a.png',
          createdAt: '2000-01-01T00:00:00.000Z',
        }),
      );
      expect(res.status).toBe(201);
      expect(res.body.data.user).toMatchObject({
        phoneNumber: 5551234567,
        address: { city: 'London', postalCode: 'NW1 6XE' },
        avatar: 'https://example.com/a.png',
      });
      expect(res.body.data.user.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
    });

    it('stores a bcrypt hash, never the password', async () => {
      const body = signupBody({ email: uniqueEmail('hash') });
      await t.http.post('/api/v1/singup', body);
      const stored = await t.db.collection('users').findOne({ email: body.email });
      expect(stored).not.toBeNull();
      expect(stored!.passwordHash).toMatch(/^\$2[aby]\$04\$/);
      expect(JSON.stringify(stored)).not.toContain(body.password);
    });

    it('rejects a duplicate email with 409, case-insensitively', async () => {
      const body = signupBody({ email: uniqueEmail('dup') });
      expect((await t.http.post('/api/v1/singup', body)).status).toBe(201);
      const again = await t.http.post('/api/v1/singup', { ...body, email: body.email.toUpperCase() });
      expectError(again, 409, /email/);
    });

    it.each([
      ['email', { email: 'not-an-email' }, 'email must be an email'],
      ['password', { password: 'short' }, 'password must be at least 8 characters long'],
      ['password', { password: 'é'.repeat(40) }, 'password must be at most 72 bytes long'],
      ['role', { role: 'owner' }, 'role must be one of: developer, manager, admin'],
      ['firstName', { firstName: '' }, undefined],
      ['phoneNumber', { phoneNumber: 12.5 }, undefined],
      ['phoneNumber', { phoneNumber: '555' }, undefined],
      ['avatar', { avatar: 'javascript:alert(1)' }, 'avatar must be an http(s) URL'],
      ['address', { address: 'Baker Street' }, undefined],
      ['address.lines', { address: { lines: ['221B', 'Baker Street'] } }, 'property lines should not exist'],
      ['address.$where', { address: { $where: 'sleep(1000)' } }, 'property $where should not exist'],
      ['address.city', { address: { city: 42 } }, 'city must be a string'],
    ])('rejects an invalid %s with 400 naming the field', async (field, overrides, message) => {
      const res = await t.http.post('/api/v1/singup', signupBody(overrides));
      expectValidationError(res, field, message);
    });

    it('rejects missing required fields', async () => {
      const res = await t.http.post('/api/v1/singup', { email: uniqueEmail() });
      for (const field of ['firstName', 'lastName', 'password', 'role']) expectValidationError(res, field);
    });

    it('rejects a blank first or last name with 400, creating no user', async () => {
      for (const field of ['firstName', 'lastName']) {
        const email = uniqueEmail();
        const res = await t.http.post('/api/v1/singup', signupBody({ email, [field]: '   ' }));
        expectValidationError(res, field, `${field} must not be empty`);
        expect(await t.db.collection('users').countDocuments({ email })).toBe(0);
      }
    });

    it('rejects unknown fields, so status, _id or passwordHash cannot be mass-assigned', async () => {
      for (const extra of [
        { status: 'suspended' },
        { _id: '6650c0ffee0000000000a001' },
        { passwordHash: 'x' },
        { userName: 'x' },
      ]) {
        const res = await t.http.post('/api/v1/singup', signupBody(extra));
        expectValidationError(res, Object.keys(extra)[0], /should not exist/);
      }
    });
  });

  describe('roles at signup', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await createTestApp();
    });
    afterAll(() => app.close());

    it("ignores a bearer token on signup: an admin's token does not put the new user in the admin's account", async () => {
      const admin = await createFirstAdmin(app.http);
      const res = await app.http.post('/api/v1/singup', signupBody({ role: 'manager' }), { token: admin.token });
      expect(res.status).toBe(201);
      expect(res.body.data.account.id).not.toBe(admin.accountId);
      expect(res.body.data.account.owner).toBe(true);
    });

    it('gives each of several racing admin signups its own account', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, () => app.http.post('/api/v1/singup', signupBody({ role: 'admin' }))),
      );
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
      expect(new Set(results.map((r) => r.body.data.account.id)).size).toBe(8);
    });
  });

  describe('login', () => {
    const email = uniqueEmail('login');
    const password = 'a very good password';

    beforeAll(async () => {
      const res = await t.http.post('/api/v1/singup', signupBody({ email, password }));
      expect(res.status).toBe(201);
    });

    it('returns 200, the message, an HS256 token with sub and acc, and the user', async () => {
      const res = await t.http.post('/api/v1/login', { email, password });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Login successful');
      expect(Object.keys(res.body.data.user).sort()).toEqual(USER_FIELDS);
      expect(res.text).not.toMatch(/passwordHash|\$2[aby]\$/);
      const [header, payload] = res.body.accessToken
        .split('.')
        .slice(0, 2)
        .map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()));
      expect(header.alg).toBe('HS256');
      expect(payload).toMatchObject({ sub: res.body.data.user.id, acc: res.body.data.user.defaultCompany });
      expect(payload.exp - payload.iat).toBe(3600);
    });

    it('accepts the email in any case', async () => {
      expect((await t.http.post('/api/v1/login', { email: email.toUpperCase(), password })).status).toBe(200);
    });

    it('answers unknown email and wrong password with the same 401', async () => {
      const unknown = await t.http.post('/api/v1/login', { email: uniqueEmail('nobody'), password });
      const wrong = await t.http.post('/api/v1/login', { email, password: 'not the password' });
      expectError(unknown, 401, 'Invalid email or password');
      expectError(wrong, 401, 'Invalid email or password');
      expect(unknown.body).toEqual(wrong.body);
    });

    it('validates the body', async () => {
      expectValidationError(await t.http.post('/api/v1/login', { email: 'x', password }), 'email');
      expectValidationError(await t.http.post('/api/v1/login', { email }), 'password');
      expectValidationError(await t.http.post('/api/v1/login', { email, password, accountId: null }), 'accountId');
      expectValidationError(
        await t.http.post('/api/v1/login', { email, password, role: 'admin' }),
        'role',
        /should not exist/,
      );
    });
  });

  describe('bearer tokens', () => {
    let token: string;
    let userId: string;

    beforeAll(async () => {
      const user = await createUser(t.http, 'developer');
      token = user.token;
      userId = user.id;
    });

    it('GET /api/v1/me returns the token user', async () => {
      const res = await t.http.get('/api/v1/me', { token });
      expect(res.status).toBe(200);
      expect(res.body.data.user.id).toBe(userId);
      expect(Object.keys(res.body.data.user).sort()).toEqual(USER_FIELDS);
    });

    it('rejects a missing or malformed Authorization header', async () => {
      expectError(await t.http.get('/api/v1/me'), 401, /Missing bearer token/);
      expectError(await t.http.get('/api/v1/me', { headers: { authorization: `Token ${token}` } }), 401);
      expectError(await t.http.get('/api/v1/me', { headers: { authorization: 'Bearer not.a.jwt' } }), 401);
    });

    it('rejects a tampered token', async () => {
      const [header, , signature] = token.split('.');
      const payload = base64url({
        sub: userId,
        role: 'admin',
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.now() / 1000) + 600,
      });
      expectError(
        await t.http.get('/api/v1/me', { token: `${header}.${payload}.${signature}` }),
        401,
        'Invalid or expired token',
      );
    });

    it('rejects a token signed with another secret', async () => {
      const forged = signToken(
        { sub: userId, role: 'admin', exp: Math.floor(Date.now() / 1000) + 600 },
        'another-secret-another-secret-another-secret',
      );
      expectError(await t.http.get('/api/v1/me', { token: forged }), 401);
    });

    it('rejects an expired token', async () => {
      const expired = signToken({ sub: userId, role: 'developer', iat: 1_600_000_000, exp: 1_600_000_060 });
      expectError(await t.http.get('/api/v1/me', { token: expired }), 401, 'Invalid or expired token');
    });

    it('rejects alg: none', async () => {
      const none = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: userId, role: 'admin', exp: Math.floor(Date.now() / 1000) + 600 })}.`;
      expectError(await t.http.get('/api/v1/me', { token: none }), 401);
    });

    it('rejects HS512 even with the right secret (algorithm pinned)', async () => {
      const header = { alg: 'HS512', typ: 'JWT' };
      const unsigned = `${base64url(header)}.${base64url({ sub: userId, role: 'developer', exp: Math.floor(Date.now() / 1000) + 600 })}`;
      const signature = createHmac('sha512', TEST_JWT_SECRET).update(unsigned).digest('base64url');
      expectError(await t.http.get('/api/v1/me', { token: `${unsigned}.${signature}` }), 401);
    });

    it('rejects a well-signed token whose subject is not a user id', async () => {
      const odd = signToken({ sub: 'root', acc: null, exp: Math.floor(Date.now() / 1000) + 600 });
      expectError(await t.http.get('/api/v1/me', { token: odd }), 401);
    });

    it('answers 401 when the token user no longer exists', async () => {
      const ghost = signToken({
        sub: '6650c0ffee0000000000a001',
        role: 'developer',
        exp: Math.floor(Date.now() / 1000) + 600,
      });
      expectError(await t.http.get('/api/v1/me', { token: ghost }), 401);
    });
  });
});

describe('login throttling', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '3' });
  });
  afterAll(() => t.close());

  it('answers 429 after repeated failures, also for the right password, and does not count successes', async () => {
    const body = signupBody({ email: uniqueEmail('throttle') });
    expect((await t.http.post('/api/v1/singup', body)).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      expect((await t.http.post('/api/v1/login', { email: body.email, password: body.password })).status).toBe(200);
    }
    for (let i = 0; i < 3; i++) {
      expectError(await t.http.post('/api/v1/login', { email: body.email, password: 'wrong password' }), 401);
    }
    const blocked = await t.http.post('/api/v1/login', { email: body.email, password: 'wrong password' });
    expectError(blocked, 429, /Too many failed login attempts/);
    // The window (900 s by default) is when the oldest failure counted stops counting at the latest.
    expect(blocked.headers.get('retry-after')).toBe('900');
    expectError(await t.http.post('/api/v1/login', { email: body.email, password: body.password }), 429);
  });
});

describe('login throttling counts pairs, addresses and emails apart: no stranger locks a user out', () => {
  let t: TestApp;
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
  const login = ({ email, password }: { email: string; password: string }, address: string) =>
    t.http.post('/api/v1/login', { email, password }, from(address));
  const guess = (email: string, address: string) => login({ email, password: 'wrong guess' }, address);

  afterEach(() => t?.close());

  async function member(address: string) {
    const body = signupBody({ email: uniqueEmail('victim') });
    expect((await t.http.post('/api/v1/singup', body, from(address))).status).toBe(201);
    return body;
  }

  it("a stranger's guesses block the stranger's address for that email, never the owner's correct password from elsewhere", async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '5', LOGIN_MAX_FAILURES_PER_CLIENT: '20', TRUST_PROXY: '1' });
    const victim = await member('198.51.100.10');
    for (let i = 0; i < 5; i++) expectError(await guess(victim.email, '203.0.113.66'), 401);
    // The stranger keeps guessing: the pair is blocked, whatever the password.
    for (let i = 0; i < 3; i++)
      expectError(await guess(victim.email, '203.0.113.66'), 429, /Too many failed login attempts/);
    expectError(await login(victim, '203.0.113.66'), 429);
    // The owner, from their own address, and from a new one.
    expect((await login(victim, '198.51.100.10')).status).toBe(200);
    expect((await login(victim, '192.0.2.200')).status).toBe(200);
  });

  it('an email guessed from many addresses is blocked at its own, higher limit, except from an address that logged in to it within 30 days', async () => {
    t = await createTestApp({
      LOGIN_MAX_FAILURES: '100',
      LOGIN_MAX_FAILURES_PER_CLIENT: '100',
      LOGIN_MAX_FAILURES_PER_EMAIL: '6',
      TRUST_PROXY: '1',
    });
    const victim = await member('198.51.100.20');
    expect((await login(victim, '198.51.100.20')).status).toBe(200);
    for (let i = 1; i <= 6; i++) expectError(await guess(victim.email, `203.0.113.${i}`), 401);
    expectError(await guess(victim.email, '203.0.113.7'), 429);
    expectError(await login(victim, '192.0.2.201'), 429);
    // Where the owner logged in before, the per-email count does not apply.
    expect((await login(victim, '198.51.100.20')).status).toBe(200);

    // Not after 30 days without a login from there.
    const known = t.db.collection('known_login_addresses');
    expect(
      await known.updateOne(
        { _id: `${victim.email.toLowerCase()}\n198.51.100.20` as never },
        { $set: { at: new Date(Date.now() - 31 * 24 * 3600 * 1000) } },
      ),
    ).toMatchObject({ matchedCount: 1 });
    expectError(await login(victim, '198.51.100.20'), 429);
  });

  it('an address guessing across emails is blocked for every email, and other addresses are not', async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '5', LOGIN_MAX_FAILURES_PER_CLIENT: '4', TRUST_PROXY: '1' });
    const victim = await member('198.51.100.30');
    for (let i = 0; i < 4; i++) expectError(await guess(uniqueEmail('someone'), '203.0.113.99'), 401);
    expectError(await login(victim, '203.0.113.99'), 429);
    expect((await login(victim, '198.51.100.30')).status).toBe(200);
  });

  it('counts an IPv6 caller by its /64: rotating addresses inside it does not reset the counts, another /64 is apart', async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '3', LOGIN_MAX_FAILURES_PER_CLIENT: '4', TRUST_PROXY: '1' });
    const victim = await member('2001:db8:77:1::10');
    // The pair's limit: one email guessed from three addresses of one /64.
    for (const address of ['2001:db8:66:1::1', '2001:db8:66:1:a:b:c:d', '2001:db8:66:1:ffff:ffff:ffff:ffff'])
      expectError(await guess(victim.email, address), 401);
    expectError(await guess(victim.email, '2001:db8:66:1::99'), 429, /Too many failed login attempts/);
    // The address's limit, across emails, from yet other addresses of that /64.
    expectError(await guess(uniqueEmail('someone'), '2001:db8:66:1::100'), 429);
    // Another /64 of the same /48 counts apart; the owner's own network is untouched.
    expectError(await guess(victim.email, '2001:db8:66:2::1'), 401);
    expect((await login(victim, '2001:db8:77:1::11')).status).toBe(200);
  });
});

describe('login and signup throttling (shared in the database, per email and per client)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      LOGIN_MAX_FAILURES: '5',
      LOGIN_MAX_FAILURES_PER_CLIENT: '8',
      LOGIN_MAX_FAILURES_PER_EMAIL: '5',
      TRUST_PROXY: '1',
    });
  });
  afterAll(() => t.close());

  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

  async function account(address: string) {
    const body = signupBody({ email: uniqueEmail('own') });
    expect((await t.http.post('/api/v1/singup', body, from(address))).status).toBe(201);
    return body;
  }

  it("does not let a login to one's own account reset the count on another user's email", async () => {
    const victim = await account('198.51.100.1');
    const attacker = await account('198.51.100.2');
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4 - round * 3; i++) {
        expectError(
          await t.http.post('/api/v1/login', { email: victim.email, password: 'guess' }, from('198.51.100.2')),
          401,
        );
      }
      expect(
        (
          await t.http.post(
            '/api/v1/login',
            { email: attacker.email, password: attacker.password },
            from('198.51.100.2'),
          )
        ).status,
      ).toBe(200);
    }
    // Five guesses on the victim so far (4 + 1), each followed by the attacker's own login: the sixth is refused.
    expectError(
      await t.http.post('/api/v1/login', { email: victim.email, password: 'guess' }, from('198.51.100.2')),
      429,
    );
  });

  it('counts concurrent guesses before checking them: 20 at once let at most 5 through', async () => {
    const victim = await account('198.51.100.3');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.http.post('/api/v1/login', { email: victim.email, password: `guess ${i}` }, from(`203.0.113.${i + 1}`)),
      ),
    );
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(15);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
  });

  it('limits one client address across emails, and tells addresses apart only through a trusted proxy', async () => {
    for (let i = 0; i < 8; i++) {
      expectError(
        await t.http.post('/api/v1/login', { email: uniqueEmail('nobody'), password: 'guess' }, from('192.0.2.50')),
        401,
      );
    }
    expectError(
      await t.http.post('/api/v1/login', { email: uniqueEmail('nobody'), password: 'guess' }, from('192.0.2.50')),
      429,
    );
    expectError(
      await t.http.post('/api/v1/login', { email: uniqueEmail('nobody'), password: 'guess' }, from('192.0.2.51')),
      401,
    );

    const direct = await createTestApp({ LOGIN_MAX_FAILURES_PER_CLIENT: '3' });
    try {
      for (let i = 0; i < 3; i++) {
        await direct.http.post(
          '/api/v1/login',
          { email: uniqueEmail('nobody'), password: 'guess' },
          from(`192.0.2.${60 + i}`),
        );
      }
      // Without TRUST_PROXY the forwarded address is the client's own claim: ignored, one bucket.
      expectError(
        await direct.http.post(
          '/api/v1/login',
          { email: uniqueEmail('nobody'), password: 'guess' },
          from('192.0.2.99'),
        ),
        429,
      );
    } finally {
      await direct.close();
    }
  });

  it('throttles signups per client address, says when to come back, and does not count refused ones', async () => {
    const limited = await createTestApp({ SIGNUP_MAX_PER_CLIENT: '2' });
    try {
      const taken = signupBody();
      expect((await limited.http.post('/api/v1/singup', taken)).status).toBe(201);
      // A taken email (409) and an invitation with account fields (400) are refusals: they leave the limit as it was.
      for (let i = 0; i < 3; i++)
        expectError(await limited.http.post('/api/v1/singup', { ...taken, firstName: `Again ${i}` }), 409);
      expectError(
        await limited.http.post(
          '/api/v1/signup',
          signupBody({ role: undefined, invitationToken: 'not-a-real-invitation', accountType: 'company' }),
        ),
        400,
      );
      expect((await limited.http.post('/api/v1/signup', signupBody())).status).toBe(201);
      const blocked = await limited.http.post('/api/v1/singup', signupBody());
      expectError(blocked, 429, /Too many signups from this client\. Try again in \d+ seconds/);
      const retryAfter = Number(blocked.headers.get('retry-after'));
      // The oldest admitted signup was made moments ago: it leaves the hour's window in a little under an hour.
      expect(retryAfter).toBeGreaterThan(3500);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect((blocked.body as { message: string }).message).toContain(`Try again in ${retryAfter} seconds`);
      // The throttled attempts count for nothing; the refused ones are kept apart.
      expect(await limited.db.collection('auth_attempts').countDocuments({ kind: 'signup' })).toBe(2);
      expect(await limited.db.collection('auth_attempts').countDocuments({ kind: 'signup_refused' })).toBe(4);
    } finally {
      await limited.close();
    }
  });

  it('refuses signups from an address whose signups keep being refused (someone trying emails)', async () => {
    const limited = await createTestApp({ SIGNUP_MAX_PER_CLIENT: '2' });
    try {
      const taken = signupBody();
      expect((await limited.http.post('/api/v1/singup', taken)).status).toBe(201);
      // Three times the limit of refusals in the window, then even a good signup waits.
      for (let i = 0; i < 6; i++)
        expectError(await limited.http.post('/api/v1/singup', { ...taken, firstName: `Probe ${i}` }), 409);
      const blocked = await limited.http.post('/api/v1/singup', signupBody());
      expectError(blocked, 429, /Too many refused signups from this client/);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(3500);
    } finally {
      await limited.close();
    }
  });

  it('keeps the counts in the database, where every instance sees them', async () => {
    const victim = await account('198.51.100.9');
    expectError(
      await t.http.post('/api/v1/login', { email: victim.email, password: 'guess' }, from('198.51.100.9')),
      401,
    );
    expect(
      await t.db.collection('auth_attempts').countDocuments({ kind: 'login', email: victim.email.toLowerCase() }),
    ).toBe(1);
  });
});
