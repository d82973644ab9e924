import { Types } from 'mongoose';
import { SearchHistoryRepository } from '../../src/search-history/search-history.repository';
import {
  normalizeSearch,
  SearchHistoryService,
  type SearchToRecord,
} from '../../src/search-history/search-history.service';
import { UsersService } from '../../src/identity/users/users.service';
import { createFirstAdmin, createUser, type TestUser } from '../support/auth';
import { expectError, expectNotFound, expectValidationError } from '../support/expect-error';
import { signIn } from '../support/sessions';
import { createTestApp, type TestApp } from '../support/test-app';

const HISTORY = '/api/v1/me/search-history';

/**
 * A user's search history through the API. Searches are recorded through the port the search routes
 * call (`SearchHistoryService.record`), as they do after answering a user; everything else is HTTP.
 */
describe('search history', () => {
  let t: TestApp;
  let history: SearchHistoryService;

  beforeAll(async () => {
    t = await createTestApp();
    history = t.app.get(SearchHistoryService);
  });

  afterAll(async () => {
    await t.close();
  });

  const who = (user: TestUser) => ({ userId: user.id, accountId: user.accountId });
  const search = (
    query: string,
    filters: Record<string, string> = {},
    surface: SearchToRecord['surface'] = 'projects',
  ): SearchToRecord => ({ surface, query, filters });
  const list = async (user: TestUser, query = '') => {
    const res = await t.http.get(`${HISTORY}${query}`, { token: user.token });
    expect(res.status).toBe(200);
    return res.body as {
      data: { id: string; surface: string; query: string; filters: Record<string, string>; searchedAt: string }[];
      settings: { paused: boolean };
    };
  };
  const stored = (user: TestUser) =>
    t.db.collection('search_history').countDocuments({ userId: new Types.ObjectId(user.id) });
  const auditActions = async (user: TestUser) => {
    const res = await t.http.get(`/api/v1/accounts/${user.accountId}/audit-log?limit=100`, { token: user.token });
    expect(res.status).toBe(200);
    return res.body.data as { action: string; target: { id: string }; changes: unknown }[];
  };

  it('lists the searches newest first with their filters; a repeat (whatever its case, spacing or filter order) moves to the top instead of listing twice', async () => {
    const user = await createFirstAdmin(t.http);
    await history.record(who(user), search('summer  album', { status: 'published', access: 'public' }));
    await history.record(who(user), search("email:'jenny@example.com'", {}, 'customers'));
    await history.record(who(user), search('amount>1000', {}, 'payments'));
    let body = await list(user);
    expect(body.settings).toEqual({ paused: false });
    expect(body.data.map((entry) => [entry.surface, entry.query])).toEqual([
      ['payments', 'amount>1000'],
      ['customers', "email:'jenny@example.com'"],
      ['projects', 'summer album'],
    ]);
    expect(body.data[2]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      surface: 'projects',
      query: 'summer album',
      filters: { access: 'public', status: 'published' },
      searchedAt: expect.any(String),
    });
    const first = body.data[2];

    await history.record(who(user), search(' Summer Album ', { access: 'public', status: 'published' }));
    body = await list(user);
    expect(body.data).toHaveLength(3);
    expect(body.data[0]).toMatchObject({
      id: first.id,
      query: 'Summer Album',
      filters: { access: 'public', status: 'published' },
    });
    expect(new Date(body.data[0].searchedAt).getTime()).toBeGreaterThanOrEqual(new Date(first.searchedAt).getTime());
    // Other filters are another search.
    await history.record(who(user), search('summer album', { status: 'draft' }));
    expect((await list(user)).data).toHaveLength(4);
    // A search with no words and no filter is nothing to remember.
    await history.record(who(user), search('   '));
    expect(await stored(user)).toBe(4);

    expect((await list(user, '?surface=customers')).data.map((entry) => entry.query)).toEqual([
      "email:'jenny@example.com'",
    ]);
    expect((await list(user, '?limit=2')).data).toHaveLength(2);
    expectValidationError(await t.http.get(`${HISTORY}?surface=orders`, { token: user.token }), 'surface');
    expectValidationError(await t.http.get(`${HISTORY}?limit=101`, { token: user.token }), 'limit');
    // A dashboard session reads the same history as a token.
    expect((await (await signIn(t.http, user)).get(HISTORY)).body.data).toHaveLength(4);
    expectError(await t.http.get(HISTORY), 401);
  });

  it('removes one search (then 404), clears the rest; a malformed id is 400', async () => {
    const user = await createFirstAdmin(t.http);
    for (const query of ['one', 'two', 'three']) await history.record(who(user), search(query));
    const [three, two] = (await list(user)).data;
    const removed = await t.http.delete(`${HISTORY}/${two.id}`, { token: user.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message: 'Search removed' });
    expect((await list(user)).data.map((entry) => entry.query)).toEqual(['three', 'one']);
    expectNotFound(await t.http.delete(`${HISTORY}/${two.id}`, { token: user.token }), 'Search not found');
    expectError(await t.http.delete(`${HISTORY}/not-an-id`, { token: user.token }), 400);

    const cleared = await t.http.delete(HISTORY, { token: user.token });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ message: 'Search history cleared', deleted: 2 });
    expect((await list(user)).data).toEqual([]);
    expect(await stored(user)).toBe(0);
    expectNotFound(await t.http.delete(`${HISTORY}/${three.id}`, { token: user.token }));
    // Clearing is not pausing: the next search is recorded.
    await history.record(who(user), search('four'));
    expect((await list(user)).data.map((entry) => entry.query)).toEqual(['four']);
  });

  it('paused: records nothing until resumed, keeps what it had; pausing and resuming are audited, the searches never are', async () => {
    const user = await createFirstAdmin(t.http);
    await history.record(who(user), search('before the pause'));
    const paused = await t.http.put(`${HISTORY}/settings`, { paused: true }, { token: user.token });
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({ data: { paused: true } });
    await history.record(who(user), search('while paused'));
    let body = await list(user);
    expect(body.settings).toEqual({ paused: true });
    expect(body.data.map((entry) => entry.query)).toEqual(['before the pause']);

    // Setting what is set changes nothing and logs nothing.
    expect((await t.http.put(`${HISTORY}/settings`, { paused: true }, { token: user.token })).body).toEqual({
      data: { paused: true },
    });
    expect((await t.http.put(`${HISTORY}/settings`, { paused: false }, { token: user.token })).body).toEqual({
      data: { paused: false },
    });
    await history.record(who(user), search('after the pause'));
    body = await list(user);
    expect(body.settings).toEqual({ paused: false });
    expect(body.data.map((entry) => entry.query)).toEqual(['after the pause', 'before the pause']);

    const entries = await auditActions(user);
    const toggles = entries.filter((entry) => entry.action.startsWith('search_history.'));
    expect(toggles.map((entry) => [entry.action, entry.target.id, entry.changes])).toEqual([
      ['search_history.resumed', user.id, { paused: [true, false] }],
      ['search_history.paused', user.id, { paused: [false, true] }],
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/the pause/);
    // Nor in the events (what webhooks deliver).
    const events = await t.http.get('/v1/events?limit=100', { token: user.token });
    expect(events.status).toBe(200);
    expect(events.text).not.toMatch(/the pause|search_history/);
  });

  it('a refused request changes nothing: a bad body, an unknown field, an API key', async () => {
    const user = await createFirstAdmin(t.http);
    await history.record(who(user), search('kept'));
    expectValidationError(await t.http.put(`${HISTORY}/settings`, { paused: 'yes' }, { token: user.token }), 'paused');
    expectValidationError(await t.http.put(`${HISTORY}/settings`, {}, { token: user.token }), 'paused');
    expectValidationError(
      await t.http.put(
        `${HISTORY}/settings`,
        { paused: true, userId: new Types.ObjectId().toHexString() },
        { token: user.token },
      ),
      'userId',
    );
    const key = await t.http.post(
      `/api/v1/platform/projects/${user.projectId}/keys`,
      { name: 'history' },
      { token: user.token },
    );
    expect(key.status).toBe(201);
    const secret = key.body.data.key as string;
    expectError(await t.http.get(HISTORY, { token: secret }), 403);
    expectError(await t.http.put(`${HISTORY}/settings`, { paused: true }, { token: secret }), 403);
    expectError(await t.http.delete(HISTORY, { token: secret }), 403);
    const body = await list(user);
    expect(body).toEqual({ data: [expect.objectContaining({ query: 'kept' })], settings: { paused: false } });
    expect((await auditActions(user)).filter((entry) => entry.action.startsWith('search_history.'))).toEqual([]);
    expect(
      await t.db.collection('search_history_settings').countDocuments({ userId: new Types.ObjectId(user.id) }),
    ).toBe(0);
  });

  it("a search another site's page opened (Sec-Fetch-Site) is answered and not remembered", async () => {
    const user = await createFirstAdmin(t.http);
    const path = `/v1/customers/search?query=${encodeURIComponent('email:"nobody@example.com"')}`;
    for (const site of ['cross-site', 'same-site']) {
      const res = await t.http.get(path, { token: user.token, headers: { 'sec-fetch-site': site } });
      expect(res.status).toBe(200);
    }
    expect((await list(user)).data).toEqual([]);
    expect((await t.http.get(path, { token: user.token, headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(
      200,
    );
    expect((await list(user)).data).toEqual([expect.objectContaining({ query: 'email:"nobody@example.com"' })]);
  });

  it('keeps at most 100 per user and account: the 101st drops the oldest, and 150 recorded at once leave 100', async () => {
    const user = await createFirstAdmin(t.http);
    for (let i = 0; i < 100; i++) await history.record(who(user), search(`sequential ${i}`));
    expect(await stored(user)).toBe(100);
    await history.record(who(user), search('sequential 100'));
    const body = await list(user);
    expect(body.data).toHaveLength(100);
    expect(body.data[0].query).toBe('sequential 100');
    expect(body.data.map((entry) => entry.query)).not.toContain('sequential 0');
    expect(body.data[99].query).toBe('sequential 1');
    expect(await stored(user)).toBe(100);

    const racer = await createFirstAdmin(t.http);
    // A search already there, run again in the middle of the burst: never listed twice.
    await history.record(who(racer), search('the old favourite'));
    const burst = Array.from({ length: 150 }, (_, i) => search(`concurrent ${i}`));
    await Promise.all([
      ...burst.slice(0, 75).map((entry) => history.record(who(racer), entry)),
      history.record(who(racer), search('the old favourite')),
      ...burst.slice(75).map((entry) => history.record(who(racer), entry)),
    ]);
    expect(await stored(racer)).toBe(100);
    const kept = (await list(racer)).data.map((entry) => entry.query);
    expect(kept).toHaveLength(100);
    expect(new Set(kept).size).toBe(100);
    expect(
      await t.db
        .collection('search_history')
        .countDocuments({ userId: new Types.ObjectId(racer.id), query: 'the old favourite' }),
    ).toBeLessThanOrEqual(1);
    // One more, recorded alone, drops exactly one.
    await history.record(who(racer), search('after the burst'));
    expect(await stored(racer)).toBe(100);
    expect((await list(racer)).data[0].query).toBe('after the burst');
  });

  it('a recording stopped between its write and its trim: the list still shows 100, and the next recording trims back to 100', async () => {
    const user = await createFirstAdmin(t.http);
    for (let i = 0; i < 100; i++) await history.record(who(user), search(`kept ${i}`));
    // The write of a recording whose process stopped before it trimmed.
    await t.app
      .get(SearchHistoryRepository)
      .touch(who(user), normalizeSearch(search('written, never trimmed'))!, new Date());
    expect(await stored(user)).toBe(101);
    const shown = (await list(user)).data;
    expect(shown).toHaveLength(100);
    expect(shown[0].query).toBe('written, never trimmed');
    await history.record(who(user), search('the next one'));
    expect(await stored(user)).toBe(100);
    expect((await list(user)).data.map((entry) => entry.query).slice(0, 2)).toEqual([
      'the next one',
      'written, never trimmed',
    ]);
  });

  it('keeps a search 90 days after it was last run: an older one is not listed', async () => {
    const user = await createFirstAdmin(t.http);
    await history.record(who(user), search('ancient'));
    await history.record(who(user), search('recent'));
    const day = 86_400_000;
    await t.db
      .collection('search_history')
      .updateOne(
        { userId: new Types.ObjectId(user.id), query: 'ancient' },
        { $set: { createdAt: new Date(Date.now() - 91 * day) } },
      );
    expect((await list(user)).data.map((entry) => entry.query)).toEqual(['recent']);
    // The expiry is declared on the same field (a TTL index where the database has one, else an hourly sweep).
    const indexes = await t.db
      .collection('search_history')
      .indexes()
      .catch(() => []);
    const ttl = indexes.find((index) => index.name === 'createdAt_ttl');
    if (ttl) expect(ttl.expireAfterSeconds).toBe(90 * 86_400);
  });

  it('is personal: another member of the same account, the owner included, sees none of it and gets 404 for its ids', async () => {
    const owner = await createFirstAdmin(t.http);
    const member = await createUser(t.http, 'developer', owner.token);
    await history.record(who(member), search("name~'jen'", {}, 'customers'));
    await history.record(who(owner), search('owner search'));
    const [mine] = (await list(member)).data;
    expect(mine.query).toBe("name~'jen'");
    expect((await list(owner)).data.map((entry) => entry.query)).toEqual(['owner search']);
    expectNotFound(await t.http.delete(`${HISTORY}/${mine.id}`, { token: owner.token }), 'Search not found');
    expect((await t.http.delete(HISTORY, { token: owner.token })).body.deleted).toBe(1);
    // The owner pausing their own history leaves the member's recording on.
    await t.http.put(`${HISTORY}/settings`, { paused: true }, { token: owner.token });
    await history.record(who(member), search('still recorded', {}, 'payments'));
    expect((await list(member)).data.map((entry) => entry.query)).toEqual(['still recorded', "name~'jen'"]);
    // The same user's searches in another account are that account's alone.
    await history.record({ userId: member.id, accountId: new Types.ObjectId().toHexString() }, search('elsewhere'));
    expect((await list(member)).data.map((entry) => entry.query)).not.toContain('elsewhere');
  });

  it("deleting a user deletes their history and settings, in every account, and no one else's", async () => {
    const owner = await createFirstAdmin(t.http);
    const member = await createUser(t.http, 'developer', owner.token);
    await history.record(who(member), search('going'));
    await history.record({ userId: member.id, accountId: new Types.ObjectId().toHexString() }, search('going too'));
    await t.http.put(`${HISTORY}/settings`, { paused: true }, { token: member.token });
    await history.record(who(owner), search('staying'));
    await t.app.get(UsersService).remove(member.id);
    expect(await stored(member)).toBe(0);
    expect(
      await t.db.collection('search_history_settings').countDocuments({ userId: new Types.ObjectId(member.id) }),
    ).toBe(0);
    expect((await list(owner)).data.map((entry) => entry.query)).toEqual(['staying']);
  });
});
