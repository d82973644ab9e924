import { Types } from 'mongoose';
import { createStaff, TestUser } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

const UNKNOWN_ID = '6650c0ffee0000000000ffff';

describe('collections', () => {
  let t: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let developer: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, manager, developer } = await createStaff(t.http));
  });
  afterAll(() => t.close());

  const fullBody = (overrides: Record<string, unknown> = {}) => ({
    name: 'Starter',
    description: 'Entry-level bundle',
    numberOfClients: 12,
    numberOfUsers: 340,
    usage: 'internal analytics',
    pricing: 49.99,
    endpoints: [1, 2, 3],
    ...overrides,
  });

  async function newCollection(overrides: Record<string, unknown> = {}): Promise<string> {
    const res = await t.http.post('/collections', fullBody(overrides), { token: developer.token });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  const stored = (id: string) => t.db.collection('collections').findOne({ _id: new Types.ObjectId(id) });
  const liveCount = () => t.db.collection('collections').countDocuments({ deletedAt: null });
  const softDelete = (id: string, token = developer.token) =>
    t.http.patch(`/collections/${id}/soft-delete`, undefined, { token });

  describe('POST /collections', () => {
    it('creates a collection with every field and answers 201 with its id', async () => {
      const res = await t.http.post('/collections', fullBody(), { token: developer.token });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ message: 'Collection created', id: expect.stringMatching(/^[0-9a-f]{24}$/) });
      const doc = await stored(res.body.id);
      expect(doc).toMatchObject({ ...fullBody(), deletedAt: null });
      expect(doc?.createdAt).toBeInstanceOf(Date);
    });

    it('needs only a name; the other fields read back as null or empty', async () => {
      const res = await t.http.post('/collections', { name: 'Bare' }, { token: developer.token });
      expect(res.status).toBe(201);
      const read = await t.http.get(`/collections/${res.body.id}`, { token: developer.token });
      expect(read.body).toMatchObject({
        name: 'Bare',
        description: null,
        numberOfClients: null,
        numberOfUsers: null,
        usage: null,
        pricing: null,
        endpoints: [],
        deletedAt: null,
      });
    });

    it('accepts zero counts, zero pricing and negative endpoint numbers', async () => {
      const id = await newCollection({ numberOfClients: 0, numberOfUsers: 0, pricing: 0, endpoints: [] });
      expect(await stored(id)).toMatchObject({ numberOfClients: 0, numberOfUsers: 0, pricing: 0, endpoints: [] });
    });

    it('accepts the documented bounds: safe-integer counts and endpoints, pricing at its maximum', async () => {
      const max = Number.MAX_SAFE_INTEGER;
      const id = await newCollection({
        numberOfClients: max,
        numberOfUsers: max,
        pricing: 1_000_000_000,
        endpoints: [-max, max],
      });
      const read = await t.http.get(`/collections/${id}`, { token: developer.token });
      expect(read.body).toMatchObject({
        numberOfClients: max,
        numberOfUsers: max,
        pricing: 1_000_000_000,
        endpoints: [-max, max],
      });
    });

    it('trims the name', async () => {
      const id = await newCollection({ name: '  Padded  ' });
      expect((await stored(id))?.name).toBe('Padded');
    });

    it.each([
      ['missing name', { name: undefined }, 'name'],
      ['empty name', { name: '' }, 'name'],
      ['blank name', { name: '   ' }, 'name'],
      ['name of the wrong type', { name: 42 }, 'name'],
      ['name too long', { name: 'x'.repeat(201) }, 'name'],
      ['null name', { name: null }, 'name'],
      ['description of the wrong type', { description: 5 }, 'description'],
      ['null description', { description: null }, 'description'],
      ['usage of the wrong type', { usage: ['a'] }, 'usage'],
      ['negative numberOfClients', { numberOfClients: -1 }, 'numberOfClients'],
      ['non-integer numberOfClients', { numberOfClients: 1.5 }, 'numberOfClients'],
      ['numberOfClients as a string', { numberOfClients: '3' }, 'numberOfClients'],
      ['negative numberOfUsers', { numberOfUsers: -5 }, 'numberOfUsers'],
      ['non-integer numberOfUsers', { numberOfUsers: 2.25 }, 'numberOfUsers'],
      ['numberOfClients beyond the safe integers', { numberOfClients: Number.MAX_SAFE_INTEGER + 1 }, 'numberOfClients'],
      ['numberOfUsers beyond the safe integers', { numberOfUsers: 1e22 }, 'numberOfUsers'],
      ['negative pricing', { pricing: -0.01 }, 'pricing'],
      ['pricing over its maximum', { pricing: 1_000_000_000.01 }, 'pricing'],
      ['an endpoint beyond the safe integers', { endpoints: [1, 2 ** 60] }, 'endpoints'],
      ['an endpoint below the safe integers', { endpoints: [-1e22] }, 'endpoints'],
      ['a blank name padded past its maximum', { name: ` ${'x'.repeat(200)} ` }, 'name'],
      ['pricing as a string', { pricing: '10' }, 'pricing'],
      ['endpoints not an array', { endpoints: 3 }, 'endpoints'],
      ['non-integer endpoints', { endpoints: [1, 2.5] }, 'endpoints'],
      ['string endpoints', { endpoints: ['1'] }, 'endpoints'],
      ['an unknown field', { colour: 'red' }, 'colour'],
      ['a client-chosen _id', { _id: UNKNOWN_ID }, '_id'],
      ['a client-chosen deletedAt', { deletedAt: '2024-01-01T00:00:00.000Z' }, 'deletedAt'],
      ['a client-chosen createdAt', { createdAt: '2024-01-01T00:00:00.000Z' }, 'createdAt'],
    ])('refuses %s with 400', async (_case, overrides, field) => {
      const before = await t.db.collection('collections').countDocuments();
      const res = await t.http.post('/collections', fullBody(overrides), { token: developer.token });
      expectValidationError(res, field);
      expect(await t.db.collection('collections').countDocuments()).toBe(before);
    });

    it('refuses a body that is not JSON with 415', async () => {
      const res = await t.http.post('/collections', undefined, {
        token: developer.token,
        raw: 'name=x',
        headers: { 'content-type': 'text/plain' },
      });
      expectError(res, 415);
    });

    it('is 401 without a token', async () => {
      expectError(await t.http.post('/collections', fullBody()), 401);
    });
  });

  describe('GET /collections', () => {
    it('returns a plain array, newest first, with the live total in X-Total-Count', async () => {
      const older = await newCollection({ name: 'Older' });
      const newer = await newCollection({ name: 'Newer' });
      const res = await t.http.get('/collections', { token: developer.token });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.headers.get('x-total-count')).toBe(String(await liveCount()));
      const ids = (res.body as { _id: string }[]).map((item) => item._id);
      expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(older));
      expect(ids.indexOf(newer)).toBe(0);
      expect(res.body[0]).toEqual({
        _id: newer,
        ...fullBody({ name: 'Newer' }),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: expect.any(String),
        deletedAt: null,
      });
    });

    it('pages with limit and skip; the total ignores both', async () => {
      await newCollection();
      await newCollection();
      await newCollection();
      const total = await liveCount();
      const all = await t.http.get('/collections?limit=500', { token: developer.token });
      expect(all.body).toHaveLength(total);
      const page = await t.http.get('/collections?limit=2&skip=1', { token: developer.token });
      expect(page.status).toBe(200);
      expect(page.headers.get('x-total-count')).toBe(String(total));
      expect(page.body.map((item: { _id: string }) => item._id)).toEqual(
        all.body.slice(1, 3).map((item: { _id: string }) => item._id),
      );
      const beyond = await t.http.get(`/collections?skip=${total}`, { token: developer.token });
      expect(beyond.body).toEqual([]);
      expect(beyond.headers.get('x-total-count')).toBe(String(total));
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['skip=-1', 'skip'],
      ['includeDeleted=maybe', 'includeDeleted'],
      ['colour=red', 'colour'],
    ])('refuses ?%s with 400', async (query, field) => {
      expectValidationError(await t.http.get(`/collections?${query}`, { token: developer.token }), field);
    });

    it('is 401 without a token', async () => {
      expectError(await t.http.get('/collections'), 401);
    });
  });

  describe('GET /collections/:id', () => {
    it('returns the collection', async () => {
      const id = await newCollection({ name: 'Readable' });
      const res = await t.http.get(`/collections/${id}`, { token: manager.token });
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
      expectNotFound(
        await t.http.get(`/collections/${UNKNOWN_ID}`, { token: developer.token }),
        'Collection not found',
      );
      expectError(await t.http.get('/collections/not-an-id', { token: developer.token }), 400);
    });

    it('is 401 without a token', async () => {
      const id = await newCollection();
      expectError(await t.http.get(`/collections/${id}`), 401);
    });
  });

  describe('PUT /collections/:id', () => {
    it('updates the given fields and leaves the others alone', async () => {
      const id = await newCollection();
      const res = await t.http.put(`/collections/${id}`, { pricing: 10, endpoints: [7] }, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Collection updated' });
      expect(await stored(id)).toMatchObject({ ...fullBody(), pricing: 10, endpoints: [7], deletedAt: null });
    });

    it('accepts an empty body', async () => {
      const id = await newCollection();
      const res = await t.http.put(`/collections/${id}`, {}, { token: developer.token });
      expect(res.status).toBe(200);
      expect(await stored(id)).toMatchObject(fullBody());
    });

    it.each([
      ['empty name', { name: '' }, 'name'],
      ['null name', { name: null }, 'name'],
      ['null endpoints', { endpoints: null }, 'endpoints'],
      ['negative numberOfUsers', { numberOfUsers: -1 }, 'numberOfUsers'],
      ['non-integer numberOfClients', { numberOfClients: 0.5 }, 'numberOfClients'],
      ['negative pricing', { pricing: -1 }, 'pricing'],
      ['an unknown field', { owner: 'me' }, 'owner'],
      ['_id', { _id: UNKNOWN_ID }, '_id'],
      ['deletedAt', { deletedAt: '2024-01-01T00:00:00.000Z' }, 'deletedAt'],
      ['createdAt', { createdAt: '2024-01-01T00:00:00.000Z' }, 'createdAt'],
    ])('refuses %s with 400 and changes nothing', async (_case, body, field) => {
      const id = await newCollection();
      expectValidationError(await t.http.put(`/collections/${id}`, body, { token: developer.token }), field);
      expect(await stored(id)).toMatchObject({ ...fullBody(), _id: new Types.ObjectId(id), deletedAt: null });
    });

    it('is 404 for an unknown id and 400 for a malformed one', async () => {
      expectNotFound(
        await t.http.put(`/collections/${UNKNOWN_ID}`, { name: 'x' }, { token: developer.token }),
        'Collection not found',
      );
      expectError(await t.http.put('/collections/123', { name: 'x' }, { token: developer.token }), 400);
    });

    it('is 404 for a soft-deleted collection, which stays unchanged', async () => {
      const id = await newCollection();
      expect((await softDelete(id)).status).toBe(200);
      expectNotFound(
        await t.http.put(`/collections/${id}`, { name: 'Renamed' }, { token: developer.token }),
        'Collection not found',
      );
      expect((await stored(id))?.name).toBe('Starter');
    });

    it('is 401 without a token', async () => {
      const id = await newCollection();
      expectError(await t.http.put(`/collections/${id}`, { name: 'x' }), 401);
    });
  });

  describe('PATCH /collections/:id/soft-delete', () => {
    it('refuses a body with fields, as every route that takes none does, changing nothing', async () => {
      const id = await newCollection({ name: 'Kept' });
      const res = await t.http.patch(`/collections/${id}/soft-delete`, { x: 1 }, { token: developer.token });
      expectValidationError(res, 'x', 'property x should not exist');
      expect((await stored(id))?.deletedAt ?? null).toBeNull();
      expectValidationError(await t.http.request('DELETE', `/collections/${id}`, [1], { token: admin.token }), 'body');
      expect(await stored(id)).not.toBeNull();
      // An empty body is no body; a caller without a token hears 401 first.
      expect((await t.http.patch(`/collections/${id}/soft-delete`, {}, { token: developer.token })).status).toBe(200);
      expect((await t.http.patch(`/collections/${id}/restore`, { y: 2 })).status).toBe(401);
    });

    it('sets deletedAt and hides the collection from lists and reads unless includeDeleted=true', async () => {
      const id = await newCollection({ name: 'Hidden' });
      const totalBefore = await liveCount();

      const res = await softDelete(id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Collection soft-deleted' });
      const doc = await stored(id);
      expect(doc?.deletedAt).toBeInstanceOf(Date);

      const list = await t.http.get('/collections?limit=500', { token: developer.token });
      expect(list.body.map((item: { _id: string }) => item._id)).not.toContain(id);
      expect(list.headers.get('x-total-count')).toBe(String(totalBefore - 1));

      const withDeleted = await t.http.get('/collections?limit=500&includeDeleted=true', { token: developer.token });
      const entry = withDeleted.body.find((item: { _id: string }) => item._id === id);
      expect(entry).toMatchObject({ name: 'Hidden', deletedAt: (doc?.deletedAt as Date).toISOString() });
      expect(withDeleted.headers.get('x-total-count')).toBe(
        String(await t.db.collection('collections').countDocuments()),
      );

      const includeFalse = await t.http.get('/collections?limit=500&includeDeleted=false', { token: developer.token });
      expect(includeFalse.body.map((item: { _id: string }) => item._id)).not.toContain(id);

      expectNotFound(await t.http.get(`/collections/${id}`, { token: developer.token }), 'Collection not found');
      const read = await t.http.get(`/collections/${id}?includeDeleted=true`, { token: developer.token });
      expect(read.status).toBe(200);
      expect(read.body.deletedAt).toBe((doc?.deletedAt as Date).toISOString());
    });

    it('is 404 when already soft-deleted', async () => {
      const id = await newCollection();
      expect((await softDelete(id)).status).toBe(200);
      const firstDeletedAt = (await stored(id))?.deletedAt;
      expectNotFound(await softDelete(id), 'Collection not found');
      expect((await stored(id))?.deletedAt).toEqual(firstDeletedAt);
    });

    it('is 404 for an unknown id, 400 for a malformed one, 401 without a token', async () => {
      expectNotFound(await softDelete(UNKNOWN_ID), 'Collection not found');
      expectError(await softDelete('zzz'), 400);
      const id = await newCollection();
      expectError(await t.http.patch(`/collections/${id}/soft-delete`), 401);
      expect((await stored(id))?.deletedAt).toBeNull();
    });
  });

  describe('PATCH /collections/:id/restore', () => {
    it('brings a soft-deleted collection back', async () => {
      const id = await newCollection();
      await softDelete(id);
      const res = await t.http.patch(`/collections/${id}/restore`, undefined, { token: developer.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Collection restored' });
      expect((await stored(id))?.deletedAt).toBeNull();
      const read = await t.http.get(`/collections/${id}`, { token: developer.token });
      expect(read.status).toBe(200);
      expect(read.body.deletedAt).toBeNull();
      const list = await t.http.get('/collections?limit=500', { token: developer.token });
      expect(list.body.map((item: { _id: string }) => item._id)).toContain(id);
      expect((await t.http.put(`/collections/${id}`, { name: 'Back' }, { token: developer.token })).status).toBe(200);
    });

    it('is 404 for a live collection and for an unknown id, 400 for a malformed one', async () => {
      const id = await newCollection();
      expectNotFound(
        await t.http.patch(`/collections/${id}/restore`, undefined, { token: developer.token }),
        'Collection not found',
      );
      expectNotFound(
        await t.http.patch(`/collections/${UNKNOWN_ID}/restore`, undefined, { token: developer.token }),
        'Collection not found',
      );
      expectError(await t.http.patch('/collections/nope/restore', undefined, { token: developer.token }), 400);
    });

    it('is 401 without a token', async () => {
      const id = await newCollection();
      await softDelete(id);
      expectError(await t.http.patch(`/collections/${id}/restore`), 401);
      expect((await stored(id))?.deletedAt).toBeInstanceOf(Date);
    });
  });

  describe('DELETE /collections/:id', () => {
    it('lets an admin remove a live collection for good', async () => {
      const id = await newCollection();
      const res = await t.http.delete(`/collections/${id}`, { token: admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Collection hard-deleted' });
      expect(await stored(id)).toBeNull();
      expectNotFound(
        await t.http.get(`/collections/${id}?includeDeleted=true`, { token: admin.token }),
        'Collection not found',
      );
      expectNotFound(await t.http.delete(`/collections/${id}`, { token: admin.token }), 'Collection not found');
    });

    it('removes a soft-deleted collection too', async () => {
      const id = await newCollection();
      await softDelete(id);
      const res = await t.http.delete(`/collections/${id}`, { token: admin.token });
      expect(res.status).toBe(200);
      expect(await stored(id)).toBeNull();
    });

    it('is 403 for a developer or a manager, and the collection stays', async () => {
      const id = await newCollection();
      expectError(await t.http.delete(`/collections/${id}`, { token: developer.token }), 403);
      expectError(await t.http.delete(`/collections/${id}`, { token: manager.token }), 403);
      expect(await stored(id)).not.toBeNull();
    });

    it('is 404 for an unknown id, 400 for a malformed one, 401 without a token', async () => {
      expectNotFound(await t.http.delete(`/collections/${UNKNOWN_ID}`, { token: admin.token }), 'Collection not found');
      expectError(await t.http.delete('/collections/1234', { token: admin.token }), 400);
      const id = await newCollection();
      expectError(await t.http.delete(`/collections/${id}`), 401);
      expect(await stored(id)).not.toBeNull();
    });
  });

  it('documents every route with its operationId and the X-Total-Count header', async () => {
    const doc = (await t.http.get('/docs-json')).body;
    expect(doc.paths['/collections'].post.operationId).toBe('createCollection');
    expect(doc.paths['/collections'].get.operationId).toBe('listCollections');
    expect(doc.paths['/collections'].get.responses['200'].headers['X-Total-Count']).toBeDefined();
    expect(doc.paths['/collections/{id}'].get.operationId).toBe('getCollection');
    expect(doc.paths['/collections/{id}'].put.operationId).toBe('updateCollection');
    expect(doc.paths['/collections/{id}'].delete.operationId).toBe('hardDeleteCollection');
    expect(doc.paths['/collections/{id}'].delete.responses['403']).toBeDefined();
    expect(doc.paths['/collections/{id}/soft-delete'].patch.operationId).toBe('softDeleteCollection');
    expect(doc.paths['/collections/{id}/restore'].patch.operationId).toBe('restoreCollection');
  });
});
