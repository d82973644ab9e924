import { Types } from 'mongoose';
import { createHash } from 'node:crypto';
import { InvitationsService } from '../../src/invitations/invitations.service';
import {
  createFirstAdmin,
  createStaff,
  createUser,
  login,
  signupBody,
  tokenAccount,
  TestUser,
  uniqueEmail,
} from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

const INVALID = 'Invitation is invalid or has expired';
const OTHER_EMAIL = 'This invitation is for another email address';
const CREATED_FIELDS = ['createdAt', 'email', 'expiresAt', 'id', 'role', 'status', 'token'];
const LISTED_FIELDS = ['createdAt', 'email', 'expiresAt', 'id', 'role', 'status'];
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('invitations', () => {
  let t: TestApp;
  let staff: { admin: TestUser; manager: TestUser; developer: TestUser };
  let stranger: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    staff = await createStaff(t.http);
    stranger = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  const invitationsPath = (accountId = staff.admin.accountId) => `/api/v1/accounts/${accountId}/invitations`;
  const invite = async (email: string, role = 'developer', token = staff.admin.token) => {
    const res = await t.http.post(invitationsPath(tokenAccount(token)), { email, role }, { token });
    if (res.status !== 201) throw new Error(`invitation failed: ${res.status} ${res.text}`);
    return res.body.data as {
      id: string;
      email: string;
      role: string;
      status: string;
      expiresAt: string;
      token: string;
    };
  };
  const signupWith = (invitationToken: string, email: string, overrides: Record<string, unknown> = {}) => {
    const body: Record<string, unknown> = signupBody({ email, invitationToken, ...overrides });
    if (!('role' in overrides)) delete body.role;
    return t.http.post('/api/v1/singup', body);
  };
  const pending = async () => {
    const res = await t.http.get(invitationsPath(), { token: staff.admin.token });
    expect(res.status).toBe(200);
    return res.body.data as { id: string; email: string; role: string; status: string }[];
  };
  const storedInvitation = (id: string) => t.db.collection('invitations').findOne({ _id: new Types.ObjectId(id) });
  const expire = (id: string) =>
    t.db
      .collection('invitations')
      .updateOne({ _id: new Types.ObjectId(id) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
  const userCount = (email: string) => t.db.collection('users').countDocuments({ email: email.toLowerCase() });

  describe('creating, listing and revoking', () => {
    it('an admin invites: 201 with the token shown once, pending, valid 7 days; the list never shows the token', async () => {
      const email = uniqueEmail('grace');
      const before = Date.now();
      const res = await t.http.post(invitationsPath(), { email, role: 'manager' }, { token: staff.admin.token });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(CREATED_FIELDS);
      const created = res.body.data;
      expect(created).toMatchObject({ email, role: 'manager', status: 'pending' });
      expect(created.token).toMatch(/^inv_[A-Za-z0-9_-]{43}$/);
      const validFor = new Date(created.expiresAt).getTime() - before;
      expect(validFor).toBeGreaterThan(WEEK_MS - 60_000);
      expect(validFor).toBeLessThanOrEqual(WEEK_MS + 60_000);

      const list = await t.http.get(invitationsPath(), { token: staff.admin.token });
      const listed = list.body.data.find((invitation: { id: string }) => invitation.id === created.id);
      expect(Object.keys(listed).sort()).toEqual(LISTED_FIELDS);
      expect(listed).toMatchObject({ email, role: 'manager', status: 'pending', expiresAt: created.expiresAt });
      expect(list.text).not.toContain(created.token);
      expect(list.text).not.toMatch(/token/i);
    });

    it('no one floods a mailbox through invitations: past MAIL_MAX_PER_EMAIL in the window, 429 with Retry-After and no mail, no invitation', async () => {
      const email = uniqueEmail('flooded');
      // Re-inviting replaces the pending invitation, and mails again: 5 mails an hour by default.
      for (let i = 0; i < 5; i++)
        expect(
          (await t.http.post(invitationsPath(), { email, role: 'developer' }, { token: staff.admin.token })).status,
        ).toBe(201);
      const before = await t.db.collection('invitations').countDocuments({ email });
      const refused = await t.http.post(invitationsPath(), { email, role: 'developer' }, { token: staff.admin.token });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await t.db.collection('invitations').countDocuments({ email })).toBe(before);
      // Another mailbox is not held up.
      expect(
        (
          await t.http.post(
            invitationsPath(),
            { email: uniqueEmail('other'), role: 'developer' },
            { token: staff.admin.token },
          )
        ).status,
      ).toBe(201);
    });

    it('stores only the SHA-256 of the token: no invitation document holds a token in plain', async () => {
      const tokens = [await invite(uniqueEmail('hash')), await invite(uniqueEmail('hash'), 'admin')];
      for (const invitation of tokens) {
        const stored = await storedInvitation(invitation.id);
        expect(stored!.tokenHash).toBe(sha256(invitation.token));
        expect(Object.keys(stored!)).not.toContain('token');
      }
      const everything = JSON.stringify(await t.db.collection('invitations').find({}).toArray());
      for (const invitation of tokens) {
        expect(everything).not.toContain(invitation.token);
        expect(everything).not.toContain(invitation.token.slice(4));
      }
    });

    it('a non-owner admin invites too; managers and developers get 403 on create, list and revoke', async () => {
      const otherAdmin = await createUser(t.http, 'admin', staff.admin.token);
      const byOtherAdmin = await invite(uniqueEmail('by-admin'), 'developer', otherAdmin.token);
      expect(byOtherAdmin.status).toBe('pending');
      for (const user of [staff.manager, staff.developer]) {
        expectError(
          await t.http.post(invitationsPath(), { email: uniqueEmail(), role: 'developer' }, { token: user.token }),
          403,
        );
        expectError(await t.http.get(invitationsPath(), { token: user.token }), 403);
        expectError(await t.http.delete(`${invitationsPath()}/${byOtherAdmin.id}`, { token: user.token }), 403);
      }
      expect((await storedInvitation(byOtherAdmin.id))!.status).toBe('pending');
    });

    it("another account's admin gets 404 Account not found on create, list and revoke", async () => {
      const invitation = await invite(uniqueEmail('foreign'));
      expectNotFound(
        await t.http.post(invitationsPath(), { email: uniqueEmail(), role: 'admin' }, { token: stranger.token }),
        'Account not found',
      );
      expectNotFound(await t.http.get(invitationsPath(), { token: stranger.token }), 'Account not found');
      expectNotFound(
        await t.http.delete(`${invitationsPath()}/${invitation.id}`, { token: stranger.token }),
        'Account not found',
      );
      // Through their own account's path, the invitation of another account is simply not found.
      expectNotFound(
        await t.http.delete(`${invitationsPath(stranger.accountId)}/${invitation.id}`, { token: stranger.token }),
        'Invitation not found',
      );
      expect((await storedInvitation(invitation.id))!.status).toBe('pending');
    });

    it('validates the body', async () => {
      expectValidationError(
        await t.http.post(
          invitationsPath(),
          { email: 'not-an-email', role: 'developer' },
          { token: staff.admin.token },
        ),
        'email',
      );
      expectValidationError(
        await t.http.post(invitationsPath(), { email: uniqueEmail(), role: 'owner' }, { token: staff.admin.token }),
        'role',
        'role must be one of: developer, manager, admin',
      );
      expectValidationError(
        await t.http.post(invitationsPath(), { email: uniqueEmail() }, { token: staff.admin.token }),
        'role',
      );
      expectValidationError(
        await t.http.post(
          invitationsPath(),
          { email: uniqueEmail(), role: 'developer', accountId: stranger.accountId },
          { token: staff.admin.token },
        ),
        'accountId',
        /should not exist/,
      );
    });

    it('inviting a current member is 409, whatever the case of the email', async () => {
      for (const user of [staff.developer, staff.admin]) {
        const res = await t.http.post(
          invitationsPath(),
          { email: user.email.toUpperCase(), role: 'admin' },
          { token: staff.admin.token },
        );
        expectError(res, 409, 'This user is already a member of the account');
      }
      // A user of another account is not a member here: they may be invited.
      expect(
        (
          await t.http.post(
            invitationsPath(),
            { email: stranger.email, role: 'developer' },
            { token: staff.admin.token },
          )
        ).status,
      ).toBe(201);
    });

    it('a second invitation of the same email replaces the first, whose token stops working', async () => {
      const email = uniqueEmail('twice');
      const first = await invite(email, 'developer');
      const second = await invite(email.toUpperCase(), 'manager');
      expect(second.email).toBe(email);
      expect(
        (await pending()).filter((invitation) => invitation.email === email).map((invitation) => invitation.id),
      ).toEqual([second.id]);
      expect((await storedInvitation(first.id))!.status).toBe('revoked');

      expectError(await signupWith(first.token, email), 400, INVALID);
      expect(await userCount(email)).toBe(0);
      const joined = await signupWith(second.token, email);
      expect(joined.status).toBe(201);
      expect(joined.body.data.account).toMatchObject({ id: staff.admin.accountId, role: 'manager' });
    });

    it('revoking: 200 Invitation revoked, gone from the list, its token invalid; a second revoke is 404', async () => {
      const email = uniqueEmail('revoked');
      const invitation = await invite(email);
      const res = await t.http.delete(`${invitationsPath()}/${invitation.id}`, { token: staff.admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Invitation revoked' });
      expect((await pending()).map((listed) => listed.id)).not.toContain(invitation.id);
      expectError(await signupWith(invitation.token, email), 400, INVALID);
      expect(await userCount(email)).toBe(0);
      expectNotFound(
        await t.http.delete(`${invitationsPath()}/${invitation.id}`, { token: staff.admin.token }),
        'Invitation not found',
      );
      expectNotFound(
        await t.http.delete(`${invitationsPath()}/6650c0ffee0000000000b0ff`, { token: staff.admin.token }),
        'Invitation not found',
      );
      expectError(await t.http.delete(`${invitationsPath()}/nope`, { token: staff.admin.token }), 400);
    });
  });

  describe('signup with an invitation', () => {
    it("joins the inviting account with the invitation's role when role is left out; no account is created", async () => {
      const email = uniqueEmail('joiner');
      const invitation = await invite(email, 'manager');
      const accountsBefore = await t.db.collection('accounts').countDocuments();
      const res = await signupWith(invitation.token, email);
      expect(res.status).toBe(201);
      expect(res.body.message).toBe('User created');
      expect(res.body.data.account).toMatchObject({
        id: staff.admin.accountId,
        role: 'manager',
        owner: false,
        defaultProjectId: staff.admin.projectId,
      });
      expect(res.body.data.user).toMatchObject({ email, role: 'manager', defaultCompany: staff.admin.accountId });
      expect(await t.db.collection('accounts').countDocuments()).toBe(accountsBefore);
      expect((await storedInvitation(invitation.id))!).toMatchObject({
        status: 'accepted',
        acceptedBy: new Types.ObjectId(res.body.data.user.id),
      });
      expect((await pending()).map((listed) => listed.id)).not.toContain(invitation.id);

      const session = await login(t.http, email, 'correct horse battery');
      expect(tokenAccount(session.body.accessToken)).toBe(staff.admin.accountId);
      expect(session.body.data.user.role).toBe('manager');
    });

    it("accepts a role equal to the invitation's, and refuses another role with 400 without creating the user", async () => {
      const email = uniqueEmail('role');
      const invitation = await invite(email, 'developer');
      const wrong = await signupWith(invitation.token, email, { role: 'admin' });
      expectError(wrong, 400, /role must be left out or equal the invitation's role \(developer\)/);
      expect(await userCount(email)).toBe(0);
      const same = await signupWith(invitation.token, email, { role: 'developer' });
      expect(same.status).toBe(201);
      expect(same.body.data.account).toMatchObject({ id: staff.admin.accountId, role: 'developer' });
    });

    it.each([
      ['accountType', { accountType: 'company' }],
      ['accountName', { accountName: 'My own' }],
    ])('refuses %s with an invitation token (400), and the invitation stays usable', async (_field, extra) => {
      const email = uniqueEmail('extra');
      const invitation = await invite(email);
      expectError(
        await signupWith(invitation.token, email, extra),
        400,
        /accountType and accountName cannot be given with an invitationToken/,
      );
      expect(await userCount(email)).toBe(0);
      expect((await signupWith(invitation.token, email)).status).toBe(201);
    });

    it('matches the invited email ignoring case', async () => {
      const local = `Mixed.Case.${Date.now()}`;
      const invitation = await invite(`${local}@Example.COM`);
      expect(invitation.email).toBe(`${local.toLowerCase()}@example.com`);
      const res = await signupWith(invitation.token, `${local.toUpperCase()}@EXAMPLE.com`);
      expect(res.status).toBe(201);
      expect(res.body.data.user.email).toBe(`${local.toLowerCase()}@example.com`);
      expect(res.body.data.account.id).toBe(staff.admin.accountId);
    });

    it('another email is 403 This invitation is for another email address, and nothing is written', async () => {
      const invitation = await invite(uniqueEmail('intended'));
      const intruder = uniqueEmail('intruder');
      expectError(await signupWith(invitation.token, intruder), 403, OTHER_EMAIL);
      expect(await userCount(intruder)).toBe(0);
      expect((await storedInvitation(invitation.id))!.status).toBe('pending');
    });

    it('an expired invitation is 400, is no longer listed, and cannot be accepted', async () => {
      const email = uniqueEmail('late');
      const invitation = await invite(email);
      await expire(invitation.id);
      expectError(await signupWith(invitation.token, email), 400, INVALID);
      expect(await userCount(email)).toBe(0);
      expect((await pending()).map((listed) => listed.id)).not.toContain(invitation.id);
    });

    it('an invitation is single use: the same token again is 400', async () => {
      const email = uniqueEmail('once');
      const invitation = await invite(email);
      expect((await signupWith(invitation.token, email)).status).toBe(201);
      expectError(await signupWith(invitation.token, uniqueEmail('second')), 400, INVALID);
      expectError(await signupWith(invitation.token, email), 400, INVALID);
    });

    it('an invitation revoked while the signup is running refuses the signup and leaves no user behind', async () => {
      const email = uniqueEmail('raced');
      const invitation = await invite(email);
      // The revoke lands after the signup checked the token and wrote the user, before it joins.
      const invitations = t.app.get(InvitationsService);
      const join = invitations.join.bind(invitations);
      const spy = jest.spyOn(invitations, 'join').mockImplementationOnce(async (audit, checked, userId) => {
        expect(
          (await t.http.delete(`${invitationsPath()}/${invitation.id}`, { token: staff.admin.token })).status,
        ).toBe(200);
        return join(audit, checked, userId);
      });
      try {
        expectError(await signupWith(invitation.token, email), 400, INVALID);
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
      expect(await userCount(email)).toBe(0);
      expect(
        await t.db.collection('memberships').countDocuments({ accountId: new Types.ObjectId(staff.admin.accountId) }),
      ).toBe(
        (await t.http.get(`/api/v1/accounts/${staff.admin.accountId}/members`, { token: staff.admin.token })).body.data
          .length,
      );
      // The email is free: a fresh invitation works.
      const again = await signupWith((await invite(email)).token, email);
      expect(again.status).toBe(201);
    });

    it('an unknown token is 400 Invitation is invalid or has expired; a malformed one fails validation', async () => {
      const email = uniqueEmail('guess');
      expectError(await signupWith(`inv_${'A'.repeat(43)}`, email), 400, INVALID);
      expectValidationError(await signupWith('short', email), 'invitationToken');
      expect(await userCount(email)).toBe(0);
    });
  });

  describe('POST /api/v1/invitations/accept', () => {
    it('a logged-in user of another account joins with the role, and keeps their own account', async () => {
      const user = await createFirstAdmin(t.http);
      const invitation = await invite(user.email.toUpperCase(), 'developer');
      const res = await t.http.post('/api/v1/invitations/accept', { token: invitation.token }, { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: staff.admin.accountId, role: 'developer', owner: false });
      const accounts = await t.http.get('/api/v1/accounts', { token: user.token });
      expect(accounts.body.data.map((account: { id: string; role: string }) => [account.id, account.role])).toEqual([
        [user.accountId, 'admin'],
        [staff.admin.accountId, 'developer'],
      ]);
      // The token still acts in the user's own account; a login naming the new one acts there.
      expect((await t.http.get('/api/v1/me', { token: user.token })).body.data.account.id).toBe(user.accountId);
      const there = await login(t.http, user.email, user.password, staff.admin.accountId);
      expect(there.body.data.user.role).toBe('developer');
      expect((await t.http.get('/clients', { token: there.body.accessToken })).status).toBe(200);

      expectError(
        await t.http.post('/api/v1/invitations/accept', { token: invitation.token }, { token: user.token }),
        400,
        INVALID,
      );
    });

    it('refuses another email (403), an expired, revoked or unknown token (400), and anonymous callers (401)', async () => {
      const user = await createFirstAdmin(t.http);
      const forSomeoneElse = await invite(uniqueEmail('someone'));
      expectError(
        await t.http.post('/api/v1/invitations/accept', { token: forSomeoneElse.token }, { token: user.token }),
        403,
        OTHER_EMAIL,
      );
      expect((await storedInvitation(forSomeoneElse.id))!.status).toBe('pending');

      const expired = await invite(user.email);
      await expire(expired.id);
      expectError(
        await t.http.post('/api/v1/invitations/accept', { token: expired.token }, { token: user.token }),
        400,
        INVALID,
      );

      const revoked = await invite(user.email);
      await t.http.delete(`${invitationsPath()}/${revoked.id}`, { token: staff.admin.token });
      expectError(
        await t.http.post('/api/v1/invitations/accept', { token: revoked.token }, { token: user.token }),
        400,
        INVALID,
      );
      expectError(
        await t.http.post('/api/v1/invitations/accept', { token: `inv_${'B'.repeat(43)}` }, { token: user.token }),
        400,
        INVALID,
      );
      expectValidationError(await t.http.post('/api/v1/invitations/accept', {}, { token: user.token }), 'token');
      expectError(await t.http.post('/api/v1/invitations/accept', { token: revoked.token }), 401);

      const stillMember = await t.http.get(`/api/v1/accounts/${staff.admin.accountId}`, { token: user.token });
      expectNotFound(stillMember, 'Account not found');
    });

    it('a user with no account left accepts an invitation and then works in that account', async () => {
      const { admin, developer } = await createStaff(t.http);
      expect(
        (await t.http.delete(`/api/v1/accounts/${admin.accountId}/members/${developer.id}`, { token: developer.token }))
          .status,
      ).toBe(200);
      const orphan = await login(t.http, developer.email, developer.password);
      expect(orphan.body.data.account).toBeNull();

      const invitation = await invite(developer.email, 'manager', staff.admin.token);
      const accepted = await t.http.post(
        '/api/v1/invitations/accept',
        { token: invitation.token },
        { token: orphan.body.accessToken },
      );
      expect(accepted.status).toBe(200);
      const session = await login(t.http, developer.email, developer.password);
      expect(tokenAccount(session.body.accessToken)).toBe(staff.admin.accountId);
      expect(session.body.data.user.role).toBe('manager');
    });

    it('a removed member can be invited again and rejoin', async () => {
      const { admin, developer } = await createStaff(t.http);
      await t.http.delete(`/api/v1/accounts/${admin.accountId}/members/${developer.id}`, { token: admin.token });
      const invitation = await invite(developer.email, 'developer', admin.token);
      const res = await t.http.post(
        '/api/v1/invitations/accept',
        { token: invitation.token },
        { token: developer.token },
      );
      expect(res.status).toBe(200);
      // The old token names that account: it works again.
      expect((await t.http.get('/clients', { token: developer.token })).status).toBe(200);
    });
  });
});
