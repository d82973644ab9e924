import { ConflictException } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Types } from 'mongoose';
import { CLIENT_HARD_DELETING, ClientHardDeletingEvent } from '../../src/clients/clients.events';
import { ClientsService } from '../../src/clients/clients.service';
import { tenantScope, TenantScope } from '../../src/tenancy/tenant-scope';
import { createFirstAdmin, createStaff, TestUser, uniqueEmail } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import { createContentProject } from '../support/content';
import { createTestApp, TestApp } from '../support/test-app';

const UNKNOWN_ID = '6650c0ffee0000000000ffff';

describe('clients', () => {
  let t: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let developer: TestUser;

  /** A well-formed id, for the validation cases (they fail before any id is looked up). */
  const WELL_FORMED_ID = '6650c0ffee0000000000b001';
  /** Content projects of the staff's platform project, for `projectIds`. */
  let PROJECT_A: string;
  let PROJECT_B: string;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, manager, developer } = await createStaff(t.http));
    PROJECT_A = await createContentProject(t.http, developer.token);
    PROJECT_B = await createContentProject(t.http, developer.token);
  });
  afterAll(() => t.close());

  const fullBody = (overrides: Record<string, unknown> = {}) => ({
    name: 'Acme Media',
    email: 'contact@acme.example',
    phone: '+44 20 7946 0000',
    projectIds: [PROJECT_A, PROJECT_B],
    ...overrides,
  });

  async function newClient(overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await t.http.post('/clients', fullBody(overrides), { token: developer.token });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  const stored = (id: string) => t.db.collection('clients').findOne({ _id: new Types.ObjectId(id) });
  const liveCount = () => t.db.collection('clients').countDocuments({ deletedAt: null });
  const softDelete = (id: string, token = developer.token) =>
    t.http.patch(`/clients/${id}/soft-delete`, undefined, { token });
  const ids = (body: { _id: string }[]) => body.map((item) => item._id);
  /** The platform project a user's requests act in by default: their account's default project. */
  const scopeOf = (user: TestUser): TenantScope => tenantScope(user.accountId, user.projectId);

  it('refuses the NUL character in any text of a body or a query with 400, and writes nothing', async () => {
    const before = await t.db.collection('clients').countDocuments();
    expectError(
      await t.http.post('/clients', { name: 'a\u0000b', email: 'nul@example.com' }, { token: developer.token }),
      400,
      'Text must not contain the NUL character (U+0000)',
    );
    expectError(
      await t.http.get('/clients?q=a%00b', { token: developer.token }),
      400,
      'Text must not contain the NUL character (U+0000)',
    );
    expect(await t.db.collection('clients').countDocuments()).toBe(before);
  });

  describe('POST /clients', () => {
    it('creates a client and answers 201 with its id', async () => {
      const res = await t.http.post('/clients', fullBody(), { token: developer.token });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ message: 'Client created', id: expect.stringMatching(/^[0-9a-f]{24}$/) });
      const doc = await stored(res.body.id);
      expect(doc).toMatchObject({ ...fullBody(), deletedAt: null });
      expect(doc?.createdAt).toBeInstanceOf(Date);
    });

    it('needs only name and email; phone reads back null and projectIds empty', async () => {
      const res = await t.http.post('/clients', { name: 'Solo', email: 'solo@example.com' }, { token: manager.token });
      expect(res.status).toBe(201);
      const read = await t.http.get(`/clients/${res.body.id}`, { token: developer.token });
      expect(read.body).toMatchObject({
        name: 'Solo',
        email: 'solo@example.com',
        phone: null,
        projectIds: [],
        deletedAt: null,
      });
    });

    it('allows two clients with the same email (email is not unique)', async () => {
      const email = uniqueEmail('shared');
      const first = await newClient({ email });
      const second = await newClient({ email });
      expect(first).not.toBe(second);
      expect(await t.db.collection('clients').countDocuments({ email })).toBe(2);
    });

    it.each([
      ['missing name', { name: undefined }, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['blank name', { name: '  ' }, 'name'],
      ['name of the wrong type', { name: 7 }, 'name'],
      ['name too long', { name: 'n'.repeat(201) }, 'name'],
      ['name too long before trimming', { name: ` ${'n'.repeat(200)}` }, 'name'],
      ['phone too long', { phone: '1'.repeat(51) }, 'phone'],
      ['missing email', { email: undefined }, 'email'],
      ['malformed email', { email: 'not-an-email' }, 'email'],
      ['email of the wrong type', { email: 12 }, 'email'],
      ['null email', { email: null }, 'email'],
      ['phone of the wrong type', { phone: 5551234 }, 'phone'],
      ['null phone', { phone: null }, 'phone'],
      ['projectIds not an array', { projectIds: WELL_FORMED_ID }, 'projectIds'],
      ['a malformed id in projectIds', { projectIds: [WELL_FORMED_ID, 'nope'] }, 'projectIds'],
      ['a number in projectIds', { projectIds: [1] }, 'projectIds'],
      ['an unknown field', { company: 'Acme' }, 'company'],
      ['a client-chosen _id', { _id: UNKNOWN_ID }, '_id'],
      ['a client-chosen deletedAt', { deletedAt: null }, 'deletedAt'],
      ['a client-chosen createdAt', { createdAt: '2024-01-01T00:00:00.000Z' }, 'createdAt'],
    ])('refuses %s with 400', async (_case, overrides, field) => {
      const before = await t.db.collection('clients').countDocuments();
      expectValidationError(await t.http.post('/clients', fullBody(overrides), { token: developer.token }), field);
      expect(await t.db.collection('clients').countDocuments()).toBe(before);
    });

    it('refuses a body that is not JSON with 415', async () => {
      const res = await t.http.post('/clients', undefined, {
        token: developer.token,
        raw: 'name=x',
        headers: { 'content-type': 'text/plain' },
      });
      expectError(res, 415);
    });

    it('is 401 without a token', async () => {
      expectError(await t.http.post('/clients', fullBody()), 401);
    });
  });

  describe('GET /clients', () => {
    it('returns a plain array, newest first, with the live total in X-Total-Count', async () => {
      const older = await newClient({ name: 'Older' });
      const newer = await newClient({ name: 'Newer' });
      const res = await t.http.get('/clients', { token: developer.token });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.headers.get('x-total-count')).toBe(String(await liveCount()));
      expect(ids(res.body)[0]).toBe(newer);
      expect(ids(res.body).indexOf(older)).toBeGreaterThan(0);
      expect(res.body[0]).toEqual({
        _id: newer,
        ...fullBody({ name: 'Newer' }),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: expect.any(String),
        deletedAt: null,
      });
    });

    it('pages with limit and skip; the total ignores both', async () => {
      await newClient();
      await newClient();
      await newClient();
      const total = await liveCount();
      const all = await t.http.get('/clients?limit=500', { token: developer.token });
      expect(all.body).toHaveLength(total);
      const page = await t.http.get('/clients?limit=2&skip=1', { token: developer.token });
      expect(page.status).toBe(200);
      expect(page.headers.get('x-total-count')).toBe(String(total));
      expect(ids(page.body)).toEqual(ids(all.body).slice(1, 3));
      const one = await t.http.get('/clients?limit=1', { token: developer.token });
      expect(one.body).toHaveLength(1);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=-3', 'limit'],
      ['limit=ten', 'limit'],
      ['skip=-1', 'skip'],
      ['skip=0.5', 'skip'],
      ['includeDeleted=yes', 'includeDeleted'],
      ['email=a@example.com', 'email'],
    ])('refuses ?%s with 400', async (query, field) => {
      expectValidationError(await t.http.get(`/clients?${query}`, { token: developer.token }), field);
    });

    it('is 401 without a token', async () => {
      expectError(await t.http.get('/clients'), 401);
    });
  });

  describe('GET /clients/:id', () => {
    it('returns the client', async () => {
      const id = await newClient({ name: 'Readable' });
      const res = await t.http.get(`/clients/${id}`, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        _id: id,
        ...fullBody({ name: 'Readable' }),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        deletedAt: null,
      });
      expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    });

    it('is 404 for an unknown id and 400 for a malformed one', async () => {
      expectNotFound(await t.http.get(`/clients/${UNKNOWN_ID}`, { token: developer.token }), 'Client not found');
      expectError(await t.http.get('/clients/not-an-id', { token: developer.token }), 400);
    });

    it('is 401 without a token', async () => {
      const id = await newClient();
      expectError(await t.http.get(`/clients/${id}`), 401);
    });
  });

  describe('PUT /clients/:id', () => {
    it('updates the given fields and leaves the others alone', async () => {
      const id = await newClient();
      const res = await t.http.put(
        `/clients/${id}`,
        { email: 'billing@acme.example', projectIds: [] },
        { token: developer.token },
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Client updated' });
      expect(await stored(id)).toMatchObject({
        ...fullBody(),
        email: 'billing@acme.example',
        projectIds: [],
        deletedAt: null,
      });
    });

    it('accepts an empty body', async () => {
      const id = await newClient();
      expect((await t.http.put(`/clients/${id}`, {}, { token: developer.token })).status).toBe(200);
      expect(await stored(id)).toMatchObject(fullBody());
    });

    it.each([
      ['malformed email', { email: 'nope@' }, 'email'],
      ['null name', { name: null }, 'name'],
      ['null projectIds', { projectIds: null }, 'projectIds'],
      ['a malformed id in projectIds', { projectIds: ['123'] }, 'projectIds'],
      ['an unknown field', { role: 'admin' }, 'role'],
      ['_id', { _id: UNKNOWN_ID }, '_id'],
      ['deletedAt', { deletedAt: '2024-01-01T00:00:00.000Z' }, 'deletedAt'],
      ['createdAt', { createdAt: '2024-01-01T00:00:00.000Z' }, 'createdAt'],
    ])('refuses %s with 400 and changes nothing', async (_case, body, field) => {
      const id = await newClient();
      expectValidationError(await t.http.put(`/clients/${id}`, body, { token: developer.token }), field);
      expect(await stored(id)).toMatchObject({ ...fullBody(), _id: new Types.ObjectId(id), deletedAt: null });
    });

    it('is 404 for an unknown id and 400 for a malformed one', async () => {
      expectNotFound(
        await t.http.put(`/clients/${UNKNOWN_ID}`, { name: 'x' }, { token: developer.token }),
        'Client not found',
      );
      expectError(await t.http.put('/clients/xyz', { name: 'x' }, { token: developer.token }), 400);
    });

    it('is 404 for a soft-deleted client, which stays unchanged', async () => {
      const id = await newClient();
      expect((await softDelete(id)).status).toBe(200);
      expectNotFound(
        await t.http.put(`/clients/${id}`, { name: 'Renamed' }, { token: developer.token }),
        'Client not found',
      );
      expect((await stored(id))?.name).toBe('Acme Media');
    });

    it('is 401 without a token', async () => {
      const id = await newClient();
      expectError(await t.http.put(`/clients/${id}`, { name: 'x' }), 401);
    });
  });

  describe('PATCH /clients/:id/soft-delete', () => {
    it('sets deletedAt and hides the client from lists and reads unless includeDeleted=true', async () => {
      const id = await newClient({ name: 'Hidden' });
      const totalBefore = await liveCount();

      const res = await softDelete(id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Client soft-deleted' });
      const deletedAt = (await stored(id))?.deletedAt as Date;
      expect(deletedAt).toBeInstanceOf(Date);

      const list = await t.http.get('/clients?limit=500', { token: developer.token });
      expect(ids(list.body)).not.toContain(id);
      expect(list.headers.get('x-total-count')).toBe(String(totalBefore - 1));

      const withDeleted = await t.http.get('/clients?limit=500&includeDeleted=true', { token: developer.token });
      expect(withDeleted.body.find((item: { _id: string }) => item._id === id)).toMatchObject({
        name: 'Hidden',
        deletedAt: deletedAt.toISOString(),
      });
      expect(withDeleted.headers.get('x-total-count')).toBe(String(await t.db.collection('clients').countDocuments()));

      expectNotFound(await t.http.get(`/clients/${id}`, { token: developer.token }), 'Client not found');
      expectNotFound(
        await t.http.get(`/clients/${id}?includeDeleted=false`, { token: developer.token }),
        'Client not found',
      );
      const read = await t.http.get(`/clients/${id}?includeDeleted=true`, { token: developer.token });
      expect(read.status).toBe(200);
      expect(read.body.deletedAt).toBe(deletedAt.toISOString());
    });

    it('is 404 when already soft-deleted', async () => {
      const id = await newClient();
      expect((await softDelete(id)).status).toBe(200);
      const first = (await stored(id))?.deletedAt;
      expectNotFound(await softDelete(id), 'Client not found');
      expect((await stored(id))?.deletedAt).toEqual(first);
    });

    it('is 404 for an unknown id, 400 for a malformed one, 401 without a token', async () => {
      expectNotFound(await softDelete(UNKNOWN_ID), 'Client not found');
      expectError(await softDelete('1'), 400);
      const id = await newClient();
      expectError(await t.http.patch(`/clients/${id}/soft-delete`), 401);
      expect((await stored(id))?.deletedAt).toBeNull();
    });
  });

  describe('PATCH /clients/:id/restore', () => {
    it('brings a soft-deleted client back', async () => {
      const id = await newClient();
      await softDelete(id);
      const res = await t.http.patch(`/clients/${id}/restore`, undefined, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Client restored' });
      expect((await stored(id))?.deletedAt).toBeNull();
      expect((await t.http.get(`/clients/${id}`, { token: developer.token })).body.deletedAt).toBeNull();
      expect(ids((await t.http.get('/clients?limit=500', { token: developer.token })).body)).toContain(id);
    });

    it('is 404 for a live client and for an unknown id, 400 for a malformed one', async () => {
      const id = await newClient();
      expectNotFound(
        await t.http.patch(`/clients/${id}/restore`, undefined, { token: developer.token }),
        'Client not found',
      );
      expectNotFound(
        await t.http.patch(`/clients/${UNKNOWN_ID}/restore`, undefined, { token: developer.token }),
        'Client not found',
      );
      expectError(await t.http.patch('/clients/zz/restore', undefined, { token: developer.token }), 400);
    });

    it('is 401 without a token', async () => {
      const id = await newClient();
      await softDelete(id);
      expectError(await t.http.patch(`/clients/${id}/restore`), 401);
      expect((await stored(id))?.deletedAt).toBeInstanceOf(Date);
    });
  });

  describe('DELETE /clients/:id', () => {
    it('lets an admin remove a live client without channels for good', async () => {
      const id = await newClient();
      const res = await t.http.delete(`/clients/${id}`, { token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Client hard-deleted' });
      expect(await stored(id)).toBeNull();
      expectNotFound(
        await t.http.get(`/clients/${id}?includeDeleted=true`, { token: admin.token }),
        'Client not found',
      );
      expectNotFound(await t.http.delete(`/clients/${id}`, { token: admin.token }), 'Client not found');
    });

    it('removes a soft-deleted client too', async () => {
      const id = await newClient();
      await softDelete(id);
      expect((await t.http.delete(`/clients/${id}`, { token: admin.token })).status).toBe(200);
      expect(await stored(id)).toBeNull();
    });

    it('asks listeners first with the scope and the client id; a conflict is 409 and nothing is removed', async () => {
      const id = await newClient();
      const events = t.app.get(EventEmitter2);
      const seen: ClientHardDeletingEvent[] = [];
      const refuse = async (event: ClientHardDeletingEvent) => {
        seen.push(event);
        throw new ConflictException('Client is still referenced');
      };
      events.on(CLIENT_HARD_DELETING, refuse);
      try {
        expectError(await t.http.delete(`/clients/${id}`, { token: admin.token }), 409, 'Client is still referenced');
      } finally {
        events.off(CLIENT_HARD_DELETING, refuse);
      }
      expect(seen).toEqual([
        {
          scope: {
            ...scopeOf(admin),
            origin: expect.objectContaining({ id: expect.any(String), idempotencyKey: null }),
          },
          clientId: id,
        },
      ]);
      expect(await stored(id)).not.toBeNull();
    });

    it('is 409 while the client owns a channel, and the client stays', async () => {
      const id = await newClient();
      const channel = await t.http.post(
        '/channels',
        {
          clientId: id,
          name: 'Acme Channel',
          username: `acme-${new Types.ObjectId().toHexString()}`,
          avatarUrl: 'https://example.com/acme.png',
          role: 'owner',
        },
        { token: developer.token },
      );
      expect(channel.status).toBe(200);
      expectError(await t.http.delete(`/clients/${id}`, { token: admin.token }), 409, 'Client still owns channels');
      expect(await stored(id)).not.toBeNull();
      expect((await t.http.get(`/clients/${id}`, { token: admin.token })).status).toBe(200);
    });

    it('leaves no channel pointing at a deleted client when a channel is created while the delete checks', async () => {
      const id = await newClient();
      const events = t.app.get(EventEmitter2);
      let created: { status: number; body: { id?: string } } | undefined;
      // Runs beside the channels module's check, between that check and the removal.
      const createChannelMeanwhile = async () => {
        created = await t.http.post(
          '/channels',
          {
            clientId: id,
            name: 'Racer',
            username: `racer-${new Types.ObjectId().toHexString()}`,
            avatarUrl: 'https://example.com/r.png',
            role: 'owner',
          },
          { token: developer.token },
        );
      };
      events.on(CLIENT_HARD_DELETING, createChannelMeanwhile);
      let deleted;
      try {
        deleted = await t.http.delete(`/clients/${id}`, { token: admin.token });
      } finally {
        events.off(CLIENT_HARD_DELETING, createChannelMeanwhile);
      }
      const orphans = await t.db.collection('channels').countDocuments({ clientId: id });
      if (deleted.status === 200) {
        expect(await stored(id)).toBeNull();
        expectError(created as never, 400, 'clientId does not match an existing client');
        expect(orphans).toBe(0);
      } else {
        expectError(deleted, 409, 'Client still owns channels');
        expect(await stored(id)).not.toBeNull();
      }
      // The deleting mark is lifted or gone: the client (if still there) takes channels again.
      const stillThere = await stored(id);
      expect(stillThere?.deletingAt ?? null).toBeNull();
    });

    it('is 403 for a developer or a manager, and the client stays', async () => {
      const id = await newClient();
      expectError(await t.http.delete(`/clients/${id}`, { token: developer.token }), 403);
      expectError(await t.http.delete(`/clients/${id}`, { token: manager.token }), 403);
      expect(await stored(id)).not.toBeNull();
    });

    it('is 404 for an unknown id, 400 for a malformed one, 401 without a token', async () => {
      expectNotFound(await t.http.delete(`/clients/${UNKNOWN_ID}`, { token: admin.token }), 'Client not found');
      expectError(await t.http.delete('/clients/abc', { token: admin.token }), 400);
      const id = await newClient();
      expectError(await t.http.delete(`/clients/${id}`), 401);
      expect(await stored(id)).not.toBeNull();
    });
  });

  describe('ClientsService.isLive', () => {
    it('is true for a live client of the scope’s project only', async () => {
      const clients = t.app.get(ClientsService);
      const scope = scopeOf(developer);
      const otherAccount = scopeOf(await createFirstAdmin(t.http));
      const live = await newClient();
      const softDeleted = await newClient();
      await softDelete(softDeleted);
      await expect(clients.isLive(scope, live)).resolves.toBe(true);
      await expect(clients.isLive(otherAccount, live)).resolves.toBe(false);
      await expect(clients.isLive(scope, softDeleted)).resolves.toBe(false);
      await expect(clients.isLive(scope, UNKNOWN_ID)).resolves.toBe(false);
      await expect(clients.isLive(scope, 'not-an-id')).resolves.toBe(false);
    });
  });

  it('documents every route with its operationId and the X-Total-Count header', async () => {
    const doc = (await t.http.get('/docs-json')).body;
    expect(doc.paths['/clients'].post.operationId).toBe('createClient');
    expect(doc.paths['/clients'].get.operationId).toBe('listClients');
    expect(doc.paths['/clients'].get.responses['200'].headers['X-Total-Count']).toBeDefined();
    expect(doc.paths['/clients/{id}'].get.operationId).toBe('getClient');
    expect(doc.paths['/clients/{id}'].put.operationId).toBe('updateClient');
    expect(doc.paths['/clients/{id}'].delete.operationId).toBe('hardDeleteClient');
    expect(doc.paths['/clients/{id}'].delete.responses['409']).toBeDefined();
    expect(doc.paths['/clients/{id}/soft-delete'].patch.operationId).toBe('softDeleteClient');
    expect(doc.paths['/clients/{id}/restore'].patch.operationId).toBe('restoreClient');
  });
});
