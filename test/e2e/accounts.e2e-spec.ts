import { Types } from 'mongoose';
import { MembershipsService } from '../../src/accounts/memberships.service';
import { AccountsRepository } from '../../src/accounts/accounts.repository';
import { Leases } from '../../src/leases/leases.service';
import { API_NAMES } from '../../src/tenancy/api-names';
import {
  createFirstAdmin,
  createOwner,
  createStaff,
  createUser,
  login,
  signupBody,
  tokenAccount,
  TestUser,
  uniqueEmail,
} from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';
import { testDatabaseUri } from '../support/test-database';

const ACCOUNT_VIEW_FIELDS = ['createdAt', 'defaultProjectId', 'id', 'name', 'owner', 'requireMfa', 'role', 'type'];
const MEMBER_FIELDS = ['email', 'firstName', 'joinedAt', 'lastName', 'owner', 'role', 'userId'];
const NOT_A_MEMBER = 'You are not a member of this account';
const NO_ACCOUNT = 'Create or join an account first';
const UNKNOWN_ID = '6650c0ffee0000000000e0ff';

describe('accounts and members', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const accountPath = (accountId: string, rest = '') => `/api/v1/accounts/${accountId}${rest}`;
  const members = async (accountId: string, token: string) => {
    const res = await t.http.get(accountPath(accountId, '/members'), { token });
    if (res.status !== 200) throw new Error(`members failed: ${res.status} ${res.text}`);
    return res.body.data as { userId: string; role: string; owner: boolean }[];
  };
  /** A data route of each family: the content clients list and the finance customers list. */
  const dataRoutes = (token: string): Promise<HttpResponse>[] => [
    t.http.get('/clients', { token }),
    t.http.get('/v1/customers', { token }),
  ];
  const newClient = async (token: string, name = 'Acme Media') => {
    const res = await t.http.post('/clients', { name, email: 'contact@acme.example' }, { token });
    if (res.status !== 201) throw new Error(`client create failed: ${res.status} ${res.text}`);
    return res.body.id as string;
  };

  describe('GET /api/v1/accounts', () => {
    it("lists only the caller's accounts, with the caller's role and ownership in each", async () => {
      const { admin, manager, developer } = await createStaff(t.http);
      const stranger = await createFirstAdmin(t.http);

      const ofAdmin = await t.http.get('/api/v1/accounts', { token: admin.token });
      expect(ofAdmin.status).toBe(200);
      expect(ofAdmin.body.data).toHaveLength(1);
      expect(Object.keys(ofAdmin.body.data[0]).sort()).toEqual(ACCOUNT_VIEW_FIELDS);
      expect(ofAdmin.body.data[0]).toMatchObject({
        id: admin.accountId,
        role: 'admin',
        owner: true,
        defaultProjectId: admin.projectId,
      });

      for (const [user, role] of [
        [manager, 'manager'],
        [developer, 'developer'],
      ] as const) {
        const res = await t.http.get('/api/v1/accounts', { token: user.token });
        expect(res.body.data).toEqual([expect.objectContaining({ id: admin.accountId, role, owner: false })]);
      }
      const ofStranger = await t.http.get('/api/v1/accounts', { token: stranger.token });
      expect(ofStranger.body.data.map((account: { id: string }) => account.id)).toEqual([stranger.accountId]);
    });

    it('needs a token', async () => {
      expectError(await t.http.get('/api/v1/accounts'), 401);
    });
  });

  describe('POST /api/v1/accounts', () => {
    it('lets any member (a developer too) create an account they own, with its default project holding every API', async () => {
      const { admin, developer } = await createStaff(t.http);
      const res = await t.http.post(
        '/api/v1/accounts',
        { name: 'Side Project Ltd', type: 'company' },
        { token: developer.token },
      );
      expect(res.status).toBe(201);
      const view = res.body.data;
      expect(Object.keys(view).sort()).toEqual(ACCOUNT_VIEW_FIELDS);
      expect(view).toMatchObject({ name: 'Side Project Ltd', type: 'company', role: 'admin', owner: true });
      expect(view.id).not.toBe(admin.accountId);

      const project = await t.db
        .collection('platform_projects')
        .findOne({ _id: new Types.ObjectId(view.defaultProjectId) });
      expect(project).toMatchObject({
        name: 'Default project',
        isDefault: true,
        accountId: new Types.ObjectId(view.id),
      });
      expect([...project!.enabledApis].sort()).toEqual([...API_NAMES].sort());
      const account = await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(view.id) });
      expect(String(account!.ownerId)).toBe(developer.id);

      // Both accounts are listed, oldest membership first; the creator is the new account's only member, as owner.
      const listed = await t.http.get('/api/v1/accounts', { token: developer.token });
      expect(listed.body.data.map((account: { id: string; role: string }) => [account.id, account.role])).toEqual([
        [admin.accountId, 'developer'],
        [view.id, 'admin'],
      ]);
      expect(await members(view.id, developer.token)).toEqual([
        expect.objectContaining({ userId: developer.id, role: 'admin', owner: true }),
      ]);
      // The admin of the first account sees nothing of the new one.
      expectNotFound(await t.http.get(accountPath(view.id), { token: admin.token }), 'Account not found');
    });

    it('a token for the new account acts in its default project, apart from the other account', async () => {
      const { admin, developer } = await createStaff(t.http);
      await newClient(admin.token, 'In the first account');
      const created = await t.http.post(
        '/api/v1/accounts',
        { name: 'Second', type: 'developer' },
        { token: developer.token },
      );
      const second = await login(t.http, developer.email, developer.password, created.body.data.id);
      expect(tokenAccount(second.body.accessToken)).toBe(created.body.data.id);
      const empty = await t.http.get('/clients', { token: second.body.accessToken });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual([]);
      const clientId = await newClient(second.body.accessToken, 'In the second account');
      const stored = await t.db.collection('clients').findOne({ _id: new Types.ObjectId(clientId) });
      expect(String(stored!.projectId)).toBe(created.body.data.defaultProjectId);
    });

    it('validates the body', async () => {
      const user = await createFirstAdmin(t.http);
      expectValidationError(await t.http.post('/api/v1/accounts', { type: 'company' }, { token: user.token }), 'name');
      expectValidationError(
        await t.http.post('/api/v1/accounts', { name: '   ', type: 'company' }, { token: user.token }),
        'name',
      );
      expectValidationError(
        await t.http.post('/api/v1/accounts', { name: 'X', type: 'person' }, { token: user.token }),
        'type',
        'type must be one of: developer, company',
      );
      expectValidationError(
        await t.http.post('/api/v1/accounts', { name: 'X', type: 'company', ownerId: user.id }, { token: user.token }),
        'ownerId',
        /should not exist/,
      );
      expectError(await t.http.post('/api/v1/accounts', { name: 'X', type: 'company' }), 401);
    });
  });

  describe('GET and PATCH /api/v1/accounts/:accountId', () => {
    let staff: Awaited<ReturnType<typeof createStaff>>;
    let stranger: TestUser;

    beforeAll(async () => {
      staff = await createStaff(t.http);
      stranger = await createFirstAdmin(t.http);
    });

    it("shows the account to every member with the member's role", async () => {
      for (const user of [staff.admin, staff.manager, staff.developer]) {
        const res = await t.http.get(accountPath(staff.admin.accountId), { token: user.token });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body.data).sort()).toEqual(ACCOUNT_VIEW_FIELDS);
        expect(res.body.data).toMatchObject({
          id: staff.admin.accountId,
          role: user.role,
          owner: user === staff.admin,
        });
      }
    });

    it("another account's id and an unknown id are the same 404 Account not found; a malformed id is 400", async () => {
      const foreign = await t.http.get(accountPath(staff.admin.accountId), { token: stranger.token });
      const unknown = await t.http.get(accountPath(UNKNOWN_ID), { token: stranger.token });
      expectNotFound(foreign, 'Account not found');
      expect(foreign.body).toEqual(unknown.body);
      expectError(await t.http.get(accountPath('not-an-id'), { token: stranger.token }), 400);
    });

    it('lets admins and the owner rename the account or change its type; managers and developers get 403', async () => {
      const renamed = await t.http.patch(
        accountPath(staff.admin.accountId),
        { name: 'Analytical Engines Ltd' },
        { token: staff.admin.token },
      );
      expect(renamed.status).toBe(200);
      expect(renamed.body.data).toMatchObject({
        id: staff.admin.accountId,
        name: 'Analytical Engines Ltd',
        type: 'developer',
        role: 'admin',
        owner: true,
      });

      const otherAdmin = await createUser(t.http, 'admin', staff.admin.token);
      const retyped = await t.http.patch(
        accountPath(staff.admin.accountId),
        { type: 'company' },
        { token: otherAdmin.token },
      );
      expect(retyped.status).toBe(200);
      expect(retyped.body.data).toMatchObject({
        name: 'Analytical Engines Ltd',
        type: 'company',
        role: 'admin',
        owner: false,
      });

      for (const user of [staff.manager, staff.developer]) {
        expectError(
          await t.http.patch(accountPath(staff.admin.accountId), { name: 'Mine now' }, { token: user.token }),
          403,
        );
      }
      const stored = await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(staff.admin.accountId) });
      expect(stored).toMatchObject({ name: 'Analytical Engines Ltd', type: 'company' });
    });

    it('an empty PATCH changes nothing and answers the account', async () => {
      const res = await t.http.patch(accountPath(staff.admin.accountId), {}, { token: staff.admin.token });
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(staff.admin.accountId);
    });

    it('PATCH of another account is 404 Account not found, and it stays unchanged', async () => {
      const before = await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(staff.admin.accountId) });
      expectNotFound(
        await t.http.patch(accountPath(staff.admin.accountId), { name: 'Taken over' }, { token: stranger.token }),
        'Account not found',
      );
      expect(await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(staff.admin.accountId) })).toEqual(
        before,
      );
    });

    it('validates the PATCH body', async () => {
      expectValidationError(
        await t.http.patch(accountPath(staff.admin.accountId), { type: 'person' }, { token: staff.admin.token }),
        'type',
      );
      expectValidationError(
        await t.http.patch(accountPath(staff.admin.accountId), { name: '' }, { token: staff.admin.token }),
        'name',
      );
      expectValidationError(
        await t.http.patch(accountPath(staff.admin.accountId), { ownerId: stranger.id }, { token: staff.admin.token }),
        'ownerId',
        /should not exist/,
      );
    });
  });

  describe('members', () => {
    it('lists members to every member, with exactly the contract fields; another account gets 404', async () => {
      const { admin, manager, developer } = await createStaff(t.http);
      const stranger = await createFirstAdmin(t.http);
      for (const user of [admin, manager, developer]) {
        const res = await t.http.get(accountPath(admin.accountId, '/members'), { token: user.token });
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(3);
        for (const member of res.body.data) expect(Object.keys(member).sort()).toEqual(MEMBER_FIELDS);
        expect(
          res.body.data.map((member: { userId: string; role: string; owner: boolean; email: string }) => [
            member.userId,
            member.role,
            member.owner,
            member.email,
          ]),
        ).toEqual([
          [admin.id, 'admin', true, admin.email],
          [manager.id, 'manager', false, manager.email],
          [developer.id, 'developer', false, developer.email],
        ]);
        expect(res.text).not.toMatch(/passwordHash|\$2[aby]\$/);
      }
      expectNotFound(
        await t.http.get(accountPath(admin.accountId, '/members'), { token: stranger.token }),
        'Account not found',
      );
    });

    it("lets admins change a member's role, which the member's next request uses; managers and developers get 403", async () => {
      const { admin, manager, developer } = await createStaff(t.http);
      const clientId = await newClient(admin.token);
      expectError(await t.http.delete(`/clients/${clientId}`, { token: developer.token }), 403);

      expectError(
        await t.http.patch(
          accountPath(admin.accountId, `/members/${developer.id}`),
          { role: 'admin' },
          { token: developer.token },
        ),
        403,
      );
      expectError(
        await t.http.patch(
          accountPath(admin.accountId, `/members/${developer.id}`),
          { role: 'admin' },
          { token: manager.token },
        ),
        403,
      );

      const res = await t.http.patch(
        accountPath(admin.accountId, `/members/${developer.id}`),
        { role: 'admin' },
        { token: admin.token },
      );
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(MEMBER_FIELDS);
      expect(res.body.data).toMatchObject({ userId: developer.id, role: 'admin', owner: false });
      // Same token, new role: the role is read on every request.
      expect((await t.http.delete(`/clients/${clientId}`, { token: developer.token })).status).toBe(200);
      const me = await t.http.get('/api/v1/me', { token: developer.token });
      expect(me.body.data.account.role).toBe('admin');

      // A non-owner admin manages members too.
      const back = await t.http.patch(
        accountPath(admin.accountId, `/members/${manager.id}`),
        { role: 'developer' },
        { token: developer.token },
      );
      expect(back.body.data).toMatchObject({ userId: manager.id, role: 'developer' });
    });

    it("refuses to change the owner's role with 403, whoever asks", async () => {
      const { admin } = await createStaff(t.http);
      const otherAdmin = await createUser(t.http, 'admin', admin.token);
      for (const caller of [otherAdmin, admin]) {
        expectError(
          await t.http.patch(
            accountPath(admin.accountId, `/members/${admin.id}`),
            { role: 'developer' },
            { token: caller.token },
          ),
          403,
        );
      }
      expect(await members(admin.accountId, admin.token)).toContainEqual(
        expect.objectContaining({ userId: admin.id, role: 'admin', owner: true }),
      );
    });

    it('answers an unknown member with 404, a bad role with 400, another account with 404 Account not found', async () => {
      const { admin, developer } = await createStaff(t.http);
      const stranger = await createFirstAdmin(t.http);
      expectNotFound(
        await t.http.patch(
          accountPath(admin.accountId, `/members/${stranger.id}`),
          { role: 'manager' },
          { token: admin.token },
        ),
        'Member not found',
      );
      expectValidationError(
        await t.http.patch(
          accountPath(admin.accountId, `/members/${developer.id}`),
          { role: 'owner' },
          { token: admin.token },
        ),
        'role',
        'role must be one of: developer, manager, admin',
      );
      expectNotFound(
        await t.http.patch(
          accountPath(admin.accountId, `/members/${developer.id}`),
          { role: 'admin' },
          { token: stranger.token },
        ),
        'Account not found',
      );
      expectError(
        await t.http.patch(accountPath(admin.accountId, '/members/nope'), { role: 'admin' }, { token: admin.token }),
        400,
      );
    });

    it('lets an admin remove a member, whose very next request with the same token is 403 on every data route', async () => {
      const { admin, manager, developer } = await createStaff(t.http);
      await newClient(admin.token);
      for (const res of await Promise.all(dataRoutes(developer.token))) expect(res.status).toBe(200);

      const removed = await t.http.delete(accountPath(admin.accountId, `/members/${developer.id}`), {
        token: admin.token,
      });
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ message: 'Member removed' });

      for (const res of await Promise.all(dataRoutes(developer.token))) expectError(res, 403, NOT_A_MEMBER);
      expectError(
        await t.http.post('/clients', { name: 'Sneaky', email: 'x@example.com' }, { token: developer.token }),
        403,
        NOT_A_MEMBER,
      );
      expectNotFound(await t.http.get(accountPath(admin.accountId), { token: developer.token }), 'Account not found');
      expect((await t.http.get('/api/v1/accounts', { token: developer.token })).body.data).toEqual([]);
      expect((await members(admin.accountId, admin.token)).map((member) => member.userId)).toEqual([
        admin.id,
        manager.id,
      ]);
      // Logging in again with that account is refused the same way.
      expectError(
        await t.http.post('/api/v1/login', {
          email: developer.email,
          password: developer.password,
          accountId: admin.accountId,
        }),
        403,
        NOT_A_MEMBER,
      );
    });

    it('refuses removal by managers and developers (403), and of an unknown member (404)', async () => {
      const { admin, manager, developer } = await createStaff(t.http);
      expectError(
        await t.http.delete(accountPath(admin.accountId, `/members/${developer.id}`), { token: manager.token }),
        403,
      );
      expectError(
        await t.http.delete(accountPath(admin.accountId, `/members/${manager.id}`), { token: developer.token }),
        403,
      );
      const stranger = await createFirstAdmin(t.http);
      expectNotFound(
        await t.http.delete(accountPath(admin.accountId, `/members/${stranger.id}`), { token: admin.token }),
        'Member not found',
      );
      expectNotFound(
        await t.http.delete(accountPath(admin.accountId, `/members/${developer.id}`), { token: stranger.token }),
        'Account not found',
      );
      expect(await members(admin.accountId, admin.token)).toHaveLength(3);
    });

    it('the owner cannot be removed, not even by themself: 409 Transfer ownership first', async () => {
      const { admin } = await createStaff(t.http);
      const otherAdmin = await createUser(t.http, 'admin', admin.token);
      expectError(
        await t.http.delete(accountPath(admin.accountId, `/members/${admin.id}`), { token: otherAdmin.token }),
        409,
        'Transfer ownership first',
      );
      expectError(
        await t.http.delete(accountPath(admin.accountId, `/members/${admin.id}`), { token: admin.token }),
        409,
        'Transfer ownership first',
      );
      expect(await members(admin.accountId, admin.token)).toContainEqual(
        expect.objectContaining({ userId: admin.id, owner: true }),
      );
    });

    it('a member may leave; with no account left they log in, get 403 Create or join an account first on data routes, and can create an account', async () => {
      const { admin, manager } = await createStaff(t.http);
      const left = await t.http.delete(accountPath(admin.accountId, `/members/${manager.id}`), {
        token: manager.token,
      });
      expect(left.status).toBe(200);
      expect(left.body).toEqual({ message: 'Member removed' });
      for (const res of await Promise.all(dataRoutes(manager.token))) expectError(res, 403, NOT_A_MEMBER);

      const again = await login(t.http, manager.email, manager.password);
      expect(again.body.data.account).toBeNull();
      expect(tokenAccount(again.body.accessToken)).toBeNull();
      const token = again.body.accessToken as string;
      for (const res of await Promise.all(dataRoutes(token))) expectError(res, 403, NO_ACCOUNT);
      const me = await t.http.get('/api/v1/me', { token });
      expect(me.status).toBe(200);
      expect(me.body.data).toMatchObject({ account: null, memberships: [] });
      expect((await t.http.get('/api/v1/accounts', { token })).body.data).toEqual([]);

      const created = await t.http.post('/api/v1/accounts', { name: 'Fresh start', type: 'developer' }, { token });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ name: 'Fresh start', role: 'admin', owner: true });
      const inNew = await login(t.http, manager.email, manager.password);
      expect(inNew.body.data.account.id).toBe(created.body.data.id);
      const clients = await t.http.get('/clients', { token: inNew.body.accessToken });
      expect(clients.status).toBe(200);
      expect(clients.body).toEqual([]);
    });
  });

  describe('the owner', () => {
    it('holds every admin right whatever the role recorded for them', async () => {
      const owner = await createOwner(t.http, 'developer');
      expect((await t.http.get(accountPath(owner.accountId), { token: owner.token })).body.data).toMatchObject({
        role: 'developer',
        owner: true,
      });
      const member = await createUser(t.http, 'developer', owner.token);
      expect(
        (await t.http.patch(accountPath(owner.accountId), { name: 'Renamed by the owner' }, { token: owner.token }))
          .status,
      ).toBe(200);
      expect((await t.http.get(accountPath(owner.accountId, '/invitations'), { token: owner.token })).status).toBe(200);
      expect(
        (
          await t.http.patch(
            accountPath(owner.accountId, `/members/${member.id}`),
            { role: 'manager' },
            { token: owner.token },
          )
        ).status,
      ).toBe(200);
      const clientId = await newClient(member.token);
      expect((await t.http.delete(`/clients/${clientId}`, { token: owner.token })).status).toBe(200);
      expect(
        (await t.http.delete(accountPath(owner.accountId, `/members/${member.id}`), { token: owner.token })).status,
      ).toBe(200);
    });
  });

  describe('ownership transfer', () => {
    it('the owner hands the account to a member, who becomes admin; the former owner can then be removed', async () => {
      const { admin: owner, manager, developer } = await createStaff(t.http);
      const res = await t.http.post(
        accountPath(owner.accountId, '/ownership'),
        { userId: developer.id },
        { token: owner.token },
      );
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: owner.accountId, owner: false, role: 'admin' });

      const account = await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(owner.accountId) });
      expect(String(account!.ownerId)).toBe(developer.id);
      expect(
        (await members(owner.accountId, manager.token)).map((member) => [member.userId, member.role, member.owner]),
      ).toEqual([
        [owner.id, 'admin', false],
        [manager.id, 'manager', false],
        [developer.id, 'admin', true],
      ]);
      const view = await t.http.get(accountPath(owner.accountId), { token: developer.token });
      expect(view.body.data).toMatchObject({ role: 'admin', owner: true });

      // The former owner lost the owner's rights: no second transfer, and they can be removed.
      expectError(
        await t.http.post(accountPath(owner.accountId, '/ownership'), { userId: manager.id }, { token: owner.token }),
        403,
      );
      const removed = await t.http.delete(accountPath(owner.accountId, `/members/${owner.id}`), {
        token: developer.token,
      });
      expect(removed.status).toBe(200);
      for (const res of await Promise.all(dataRoutes(owner.token))) expectError(res, 403, NOT_A_MEMBER);
      // The new owner, in turn, cannot be removed or demoted.
      expectError(
        await t.http.delete(accountPath(owner.accountId, `/members/${developer.id}`), { token: developer.token }),
        409,
        'Transfer ownership first',
      );
    });

    it('a former owner who kept a developer role loses admin rights with the ownership', async () => {
      const owner = await createOwner(t.http, 'developer');
      const heir = await createUser(t.http, 'manager', owner.token);
      const clientId = await newClient(owner.token);
      expect(
        (await t.http.post(accountPath(owner.accountId, '/ownership'), { userId: heir.id }, { token: owner.token }))
          .status,
      ).toBe(200);
      expectError(await t.http.delete(`/clients/${clientId}`, { token: owner.token }), 403);
      expectError(
        await t.http.post(
          accountPath(owner.accountId, '/invitations'),
          { email: uniqueEmail('late'), role: 'developer' },
          { token: owner.token },
        ),
        403,
      );
      expect((await t.http.delete(`/clients/${clientId}`, { token: heir.token })).status).toBe(200);
    });

    it('only the owner may transfer: a non-owner admin, a manager and a developer get 403, another account 404', async () => {
      const { admin: owner, manager, developer } = await createStaff(t.http);
      const otherAdmin = await createUser(t.http, 'admin', owner.token);
      const stranger = await createFirstAdmin(t.http);
      for (const caller of [otherAdmin, manager, developer]) {
        expectError(
          await t.http.post(accountPath(owner.accountId, '/ownership'), { userId: caller.id }, { token: caller.token }),
          403,
        );
      }
      expectNotFound(
        await t.http.post(
          accountPath(owner.accountId, '/ownership'),
          { userId: stranger.id },
          { token: stranger.token },
        ),
        'Account not found',
      );
      const account = await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(owner.accountId) });
      expect(String(account!.ownerId)).toBe(owner.id);
    });

    it('a member who leaves while the transfer to them is running does not take the account along: 404, the owner stays', async () => {
      const { admin: owner, developer } = await createStaff(t.http);
      // The developer's leave lands after the transfer found their membership, before it writes.
      const memberships = t.app.get(MembershipsService);
      const find = memberships.find.bind(memberships);
      const spy = jest.spyOn(memberships, 'find').mockImplementation(async (accountId, userId) => {
        const found = await find(accountId, userId);
        if (userId === developer.id && found) {
          spy.mockRestore();
          expect(
            (await t.http.delete(accountPath(owner.accountId, `/members/${developer.id}`), { token: developer.token }))
              .status,
          ).toBe(200);
        }
        return found;
      });
      try {
        const res = await t.http.post(
          accountPath(owner.accountId, '/ownership'),
          { userId: developer.id },
          { token: owner.token },
        );
        expectNotFound(res, 'Member not found');
      } finally {
        spy.mockRestore();
      }
      const account = await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(owner.accountId) });
      expect(String(account!.ownerId)).toBe(owner.id);
      expect(await members(owner.accountId, owner.token)).toContainEqual(
        expect.objectContaining({ userId: owner.id, owner: true }),
      );
      expect(
        await t.db
          .collection('memberships')
          .countDocuments({ accountId: new Types.ObjectId(owner.accountId), owner: true }),
      ).toBe(1);
    });

    const OWNER_ONLY = 'Only the owner can transfer ownership';
    const MEMBERS_BUSY = "Another change to this account's owner or members is in progress: try again";
    const transfer = (accountId: string, from: TestUser, to: TestUser) =>
      t.http.post(accountPath(accountId, '/ownership'), { userId: to.id }, { token: from.token });
    /** A loser of a race: no longer the owner once its turn came (403), or it waited too long for it (409). */
    const expectLostRace = (res: HttpResponse) => {
      if (res.status === 409) expectError(res, 409, MEMBERS_BUSY);
      else expectError(res, 403, OWNER_ONLY);
    };
    /** Exactly one owner, stored both ways: `ownerId` names it and only its membership says owner. */
    const expectOneOwner = async (accountId: string): Promise<string> => {
      const account = await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(accountId) });
      const owners = await t.db
        .collection('memberships')
        .find({ accountId: new Types.ObjectId(accountId), owner: true })
        .toArray();
      expect(owners.map((owner) => String(owner.userId))).toEqual([String(account!.ownerId)]);
      expect(owners[0].role).toBe('admin');
      return String(account!.ownerId);
    };
    const heirsOf = async (owner: TestUser, count: number): Promise<TestUser[]> => {
      const heirs: TestUser[] = [];
      for (let i = 0; i < count; i++) heirs.push(await createUser(t.http, 'developer', owner.token));
      return heirs;
    };

    it.each([2, 10])(
      '%i concurrent transfers to different members: exactly one wins, the others are refused, one owner remains',
      async (count) => {
        const owner = await createFirstAdmin(t.http);
        const heirs = await heirsOf(owner, count);
        const answers = await Promise.all(heirs.map((heir) => transfer(owner.accountId, owner, heir)));

        const won = answers.flatMap((res, i) => (res.status === 200 ? [heirs[i].id] : []));
        expect(won).toHaveLength(1);
        for (const res of answers.filter((answer) => answer.status !== 200)) expectLostRace(res);
        expect(await expectOneOwner(owner.accountId)).toBe(won[0]);
        // The former owner is a plain admin; every other member kept their role and is no owner.
        const roles = new Map(
          (await members(owner.accountId, owner.token)).map((member) => [member.userId, [member.role, member.owner]]),
        );
        expect(roles.get(owner.id)).toEqual(['admin', false]);
        expect(roles.get(won[0])).toEqual(['admin', true]);
        for (const heir of heirs.filter((heir) => heir.id !== won[0]))
          expect(roles.get(heir.id)).toEqual(['developer', false]);
        // Only the winner may hand the account on now.
        expectLostRace(await transfer(owner.accountId, owner, heirs[0]));
      },
    );

    it('a relay of concurrent transfers (owner -> A -> B -> C ...) ends with the one owner the successful transfers lead to', async () => {
      const owner = await createFirstAdmin(t.http);
      const relay = [owner, ...(await heirsOf(owner, 5))];
      // Each member hands on to the next, all at once; the owner also to the last, so turns compete.
      const sent: [TestUser, TestUser][] = relay.slice(0, -1).map((from, i) => [from, relay[i + 1]]);
      sent.push([owner, relay[relay.length - 1]]);
      const answers = await Promise.all(sent.map(([from, to]) => transfer(owner.accountId, from, to)));
      const done = sent.flatMap(([from, to], i) => (answers[i].status === 200 ? [[from.id, to.id]] : []));
      for (const res of answers.filter((answer) => answer.status !== 200)) expectLostRace(res);
      expect(done.length).toBeGreaterThanOrEqual(1);
      // Every success was made by the owner of its moment: the successes form one chain from the first owner.
      const fromOwner = done.filter(([from]) => from === owner.id);
      expect(fromOwner).toHaveLength(1);
      let current = fromOwner[0][1];
      let chained = 1;
      for (let next = done.find(([from]) => from === current); next; next = done.find(([from]) => from === current)) {
        current = next[1];
        chained += 1;
      }
      expect(chained).toBe(done.length);
      expect(await expectOneOwner(owner.accountId)).toBe(current);
      for (const member of await members(owner.accountId, owner.token))
        expect(member.owner).toBe(member.userId === current);
    });

    it('a transfer to a member who leaves at the same moment: either the member owns the account (and cannot leave) or has left (and owns nothing)', async () => {
      const owner = await createFirstAdmin(t.http);
      const heirs = await heirsOf(owner, 3);
      const answers = await Promise.all(
        heirs.flatMap((heir) => [
          transfer(owner.accountId, owner, heir),
          t.http.delete(accountPath(owner.accountId, `/members/${heir.id}`), { token: heir.token }),
        ]),
      );
      const finalOwner = await expectOneOwner(owner.accountId);
      const listed = await members(
        owner.accountId,
        finalOwner === owner.id ? owner.token : heirs.find((heir) => heir.id === finalOwner)!.token,
      );
      expect(listed.map((member) => member.userId)).toContain(finalOwner);
      heirs.forEach((heir, i) => {
        const [transferred, left] = [answers[2 * i], answers[2 * i + 1]];
        if (heir.id === finalOwner) {
          expect(transferred.status).toBe(200);
          expectError(left, 409, 'Transfer ownership first');
        } else if (left.status === 200) {
          expect(listed.map((member) => member.userId)).not.toContain(heir.id);
        } else {
          throw new Error(`${heir.id} neither owns the account nor left: ${left.status} ${left.text}`);
        }
      });
    });

    it("10 concurrent transfers with the account's lease out of the way (as when it expires under a stall): the claim of the owner version alone lets one through", async () => {
      const owner = await createFirstAdmin(t.http);
      const heirs = await heirsOf(owner, 10);
      const leases = t.app.get(Leases, { strict: false });
      const bypass = jest.spyOn(leases, 'withLease').mockImplementation((_key, _busy, work) => work());
      let answers: HttpResponse[];
      try {
        answers = await Promise.all(heirs.map((heir) => transfer(owner.accountId, owner, heir)));
      } finally {
        bypass.mockRestore();
      }
      const won = answers.flatMap((res, i) => (res.status === 200 ? [heirs[i].id] : []));
      expect(won).toHaveLength(1);
      for (const res of answers.filter((answer) => answer.status !== 200)) expectLostRace(res);
      expect(await expectOneOwner(owner.accountId)).toBe(won[0]);
      expect(
        await t.db.collection('ownership_transfers').countDocuments({ accountId: new Types.ObjectId(owner.accountId) }),
      ).toBe(1);
    });

    describe('a transfer stopped between its writes', () => {
      const oid = (id: string) => new Types.ObjectId(id);
      /** What a transfer of version 1 from `from` to `to` leaves when its instance stops after `writes` of its writes. */
      async function stoppedTransfer(
        accountId: string,
        from: TestUser,
        to: TestUser,
        writes: 'new owner' | 'new owner and account',
      ) {
        const now = new Date();
        await t.db.collection<{ _id: string }>('ownership_transfers').insertOne({
          _id: `${accountId}:1`,
          accountId: oid(accountId),
          from: oid(from.id),
          to: oid(to.id),
          version: 1,
          completedAt: null,
          outcome: null,
          createdAt: now,
          updatedAt: now,
        } as never);
        await t.db
          .collection('memberships')
          .updateOne(
            { accountId: oid(accountId), userId: oid(to.id) },
            { $set: { owner: true, role: 'admin', ownerVersion: 1 } },
          );
        if (writes === 'new owner and account') {
          await t.db
            .collection('accounts')
            .updateOne({ _id: oid(accountId) }, { $set: { ownerId: oid(to.id), ownerVersion: 1 } });
        }
        // Two memberships say owner: the state a stop leaves.
        expect(await t.db.collection('memberships').countDocuments({ accountId: oid(accountId), owner: true })).toBe(2);
      }

      it('is finished when an instance starts: one owner, the one the transfer named', async () => {
        const { admin: owner, manager, developer } = await createStaff(t.http);
        await stoppedTransfer(owner.accountId, owner, developer, 'new owner');
        // Another instance starts on the same database (closed without dropping it).
        const restarted = await createTestApp({ MONGODB_URI: testDatabaseUri(t.db.name) });
        await restarted.app.close();

        expect(await expectOneOwner(owner.accountId)).toBe(developer.id);
        const account = await t.db.collection('accounts').findOne({ _id: oid(owner.accountId) });
        expect(account).toMatchObject({ ownerVersion: 1 });
        expect(
          await t.db.collection<{ _id: string }>('ownership_transfers').findOne({ _id: `${owner.accountId}:1` }),
        ).toMatchObject({
          completedAt: expect.any(Date),
          outcome: 'transferred',
        });
        const roles = new Map(
          (await members(owner.accountId, manager.token)).map((member) => [member.userId, [member.role, member.owner]]),
        );
        expect(roles.get(owner.id)).toEqual(['admin', false]);
        expect(roles.get(manager.id)).toEqual(['manager', false]);
        expect(roles.get(developer.id)).toEqual(['admin', true]);
      });

      it("is finished by the account's next transfer, before it checks who owns the account", async () => {
        const { admin: owner, manager, developer } = await createStaff(t.http);
        await stoppedTransfer(owner.accountId, owner, developer, 'new owner and account');
        // The former owner's membership still says owner, but the account is the developer's.
        expectError(await transfer(owner.accountId, owner, manager), 403, OWNER_ONLY);
        expect(await expectOneOwner(owner.accountId)).toBe(developer.id);
        expect((await transfer(owner.accountId, developer, manager)).status).toBe(200);
        expect(await expectOneOwner(owner.accountId)).toBe(manager.id);
        expect(await t.db.collection('accounts').findOne({ _id: oid(owner.accountId) })).toMatchObject({
          ownerVersion: 2,
        });
      });

      it('a transfer that resumes after a later one writes nothing: every write of it is fenced by its version', async () => {
        const { admin: owner, manager, developer } = await createStaff(t.http);
        expect((await transfer(owner.accountId, owner, developer)).status).toBe(200);
        expect((await transfer(owner.accountId, developer, manager)).status).toBe(200);
        // Version 1 (owner -> developer) resumes late, as a stalled instance would, write by write.
        const accountId = oid(owner.accountId);
        expect(await t.app.get(MembershipsService).markOwnerFenced(accountId, oid(developer.id), 1)).toBe(false);
        expect(await t.app.get(AccountsRepository).setOwnerFenced(accountId, oid(developer.id), 1)).toBe(false);
        await t.app.get(MembershipsService).unmarkOthersFenced(accountId, oid(developer.id), 1);
        expect(await expectOneOwner(owner.accountId)).toBe(manager.id);
        // And as an unfinished claim that an instance's start finishes: nothing changes either.
        await t.db
          .collection<{ _id: string }>('ownership_transfers')
          .updateOne({ _id: `${owner.accountId}:1` }, { $set: { completedAt: null, outcome: null } });
        const restarted = await createTestApp({ MONGODB_URI: testDatabaseUri(t.db.name) });
        await restarted.app.close();
        expect(await expectOneOwner(owner.accountId)).toBe(manager.id);
        expect(await t.db.collection('accounts').findOne({ _id: accountId })).toMatchObject({ ownerVersion: 2 });
      });
    });

    it('the new owner must be a member (404 otherwise) and given as a valid id (400)', async () => {
      const owner = await createFirstAdmin(t.http);
      const stranger = await createFirstAdmin(t.http);
      expectNotFound(
        await t.http.post(accountPath(owner.accountId, '/ownership'), { userId: stranger.id }, { token: owner.token }),
        'Member not found',
      );
      expectValidationError(
        await t.http.post(accountPath(owner.accountId, '/ownership'), { userId: 'nobody' }, { token: owner.token }),
        'userId',
      );
      expectValidationError(
        await t.http.post(accountPath(owner.accountId, '/ownership'), {}, { token: owner.token }),
        'userId',
      );
      expect(await members(owner.accountId, owner.token)).toEqual([
        expect.objectContaining({ userId: owner.id, owner: true }),
      ]);
    });
  });

  describe('login with accountId, and /me', () => {
    it('acts in the named account, with the role held there', async () => {
      const owner = await createFirstAdmin(t.http);
      const other = await createOwner(t.http, 'admin');
      // `other` owns an account and is also a developer in owner's account.
      const invitation = await t.http.post(
        accountPath(owner.accountId, '/invitations'),
        { email: other.email, role: 'developer' },
        { token: owner.token },
      );
      expect(
        (await t.http.post('/api/v1/invitations/accept', { token: invitation.body.data.token }, { token: other.token }))
          .status,
      ).toBe(200);
      const clientId = await newClient(owner.token);

      const byDefault = await login(t.http, other.email, other.password);
      expect(tokenAccount(byDefault.body.accessToken)).toBe(other.accountId);
      expect(byDefault.body.data.user.role).toBe('admin');
      expect(byDefault.body.data.account).toMatchObject({ id: other.accountId, role: 'admin', owner: true });

      const there = await login(t.http, other.email, other.password, owner.accountId.toUpperCase());
      const token = there.body.accessToken as string;
      expect(tokenAccount(token)).toBe(owner.accountId);
      expect(there.body.data.user.role).toBe('developer');
      expect(there.body.data.account).toMatchObject({ id: owner.accountId, role: 'developer', owner: false });
      // The token sees that account's records, with developer rights.
      const clients = await t.http.get('/clients', { token });
      expect(clients.body.map((client: { _id: string }) => client._id)).toEqual([clientId]);
      expectError(await t.http.delete(`/clients/${clientId}`, { token }), 403);
      expect((await t.http.get('/clients', { token: byDefault.body.accessToken })).body).toEqual([]);

      const me = await t.http.get('/api/v1/me', { token });
      expect(me.status).toBe(200);
      expect(Object.keys(me.body.data).sort()).toEqual(['account', 'memberships', 'user']);
      expect(me.body.data.user).toMatchObject({ id: other.id, email: other.email, role: 'developer' });
      expect(me.body.data.account).toMatchObject({ id: owner.accountId, role: 'developer', owner: false });
      expect(Object.keys(me.body.data.account).sort()).toEqual(ACCOUNT_VIEW_FIELDS);
      expect(
        me.body.data.memberships.map((view: { id: string; role: string; owner: boolean }) => [
          view.id,
          view.role,
          view.owner,
        ]),
      ).toEqual([
        [other.accountId, 'admin', true],
        [owner.accountId, 'developer', false],
      ]);
      for (const view of me.body.data.memberships) expect(Object.keys(view).sort()).toEqual(ACCOUNT_VIEW_FIELDS);
    });

    it('refuses an account the user is not a member of with 403, and a malformed accountId with 400', async () => {
      const user = await createFirstAdmin(t.http);
      const stranger = await createFirstAdmin(t.http);
      const foreign = await t.http.post('/api/v1/login', {
        email: user.email,
        password: user.password,
        accountId: stranger.accountId,
      });
      expectError(foreign, 403, NOT_A_MEMBER);
      expect(foreign.body.accessToken).toBeUndefined();
      expectError(
        await t.http.post('/api/v1/login', { email: user.email, password: user.password, accountId: UNKNOWN_ID }),
        403,
        NOT_A_MEMBER,
      );
      expectValidationError(
        await t.http.post('/api/v1/login', { email: user.email, password: user.password, accountId: 'acme' }),
        'accountId',
      );
    });
  });

  describe('isolation between accounts', () => {
    it("a stranger's signup sees none of another account's data", async () => {
      const { admin, developer } = await createStaff(t.http);
      await newClient(admin.token);
      const customer = await t.http.post('/v1/customers', { email: 'buyer@example.com' }, { token: developer.token });
      expect(customer.status).toBe(201);

      const signup = await t.http.post('/api/v1/signup', signupBody({ role: 'admin', email: uniqueEmail('stranger') }));
      expect(signup.status).toBe(201);
      expect(signup.body.data.account.id).not.toBe(admin.accountId);
      const stranger = await login(t.http, signup.body.data.user.email, 'correct horse battery');
      const token = stranger.body.accessToken as string;
      const clients = await t.http.get('/clients', { token });
      expect(clients.status).toBe(200);
      expect(clients.body).toEqual([]);
      expect(clients.headers.get('x-total-count')).toBe('0');
      const customers = await t.http.get('/v1/customers', { token });
      expect(customers.status).toBe(200);
      expect(customers.body.data).toEqual([]);
      expectNotFound(await t.http.get(`/v1/customers/${customer.body.data.id}`, { token }), 'Customer not found');
      expect(
        (await t.http.get('/api/v1/accounts', { token })).body.data.map((account: { id: string }) => account.id),
      ).toEqual([signup.body.data.account.id]);
      expectNotFound(await t.http.get(accountPath(admin.accountId, '/members'), { token }), 'Account not found');
    });
  });
});
