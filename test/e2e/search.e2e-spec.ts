import { randomBytes } from 'node:crypto';
import { createFirstAdmin, TestUser, uniqueEmail } from '../support/auth';
import { pollUntil } from '../support/deadline';
import { expectError, expectValidationError } from '../support/expect-error';
import type { HttpResponse } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

/** How long a write may take to show in search results here; the figure measured is printed. */
const LAG_BOUND_MS = 10_000;

/** A word no other test writes, so a search for it finds only what one test made. */
const word = (prefix: string) =>
  `${prefix}${randomBytes(4)
    .toString('hex')
    .replace(/\d/g, (digit) => 'ghijklmnop'[Number(digit)])}`;

describe('search: the index and the four search routes', () => {
  let t: TestApp;
  let owner: TestUser;
  let stranger: TestUser;
  let channel: string;
  let strangerChannel: string;
  let publishable: string;
  let strangerPublishable: string;

  function ok(res: HttpResponse, status = 200): HttpResponse {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
    return res;
  }

  async function channelOf(user: TestUser): Promise<string> {
    const client = ok(
      await t.http.post('/clients', { name: 'Studio owner', email: uniqueEmail('client') }, { token: user.token }),
      201,
    ).body.id;
    const body = {
      clientId: client,
      name: 'Studio',
      username: `studio_${randomBytes(5).toString('hex')}`,
      avatarUrl: 'https://cdn.example.com/a.png',
      role: 'creator',
    };
    return ok(await t.http.post('/channels', body, { token: user.token })).body.id;
  }

  async function key(user: TestUser): Promise<string> {
    return ok(
      await t.http.post(
        `/api/v1/platform/projects/${user.projectId}/keys`,
        { name: 'app', kind: 'publishable' },
        { token: user.token },
      ),
      201,
    ).body.data.key;
  }

  async function project(fields: Record<string, unknown>, user = owner, inChannel = channel): Promise<string> {
    const body = { primaryTitle: 'Untitled', projectTypeId: 'show', ...fields };
    return ok(await t.http.post(`/channels/${inChannel}/projects`, body, { token: user.token }), 201).body._id;
  }

  const search = (query: string, user = owner) => t.http.get(`/projects/search?${query}`, { token: user.token });
  const ids = (res: HttpResponse): string[] =>
    ok(res).body.data.map((item: { _id?: string; id?: string }) => item._id ?? item.id);

  /** Polls a search until `expected` holds of its ids (the index follows writes with a short lag). */
  async function until(
    request: () => Promise<HttpResponse>,
    expected: (found: string[]) => boolean,
  ): Promise<HttpResponse> {
    let last: HttpResponse | undefined;
    const seen = await pollUntil(
      async () => {
        last = await request();
        return last.status === 200 && expected(ids(last));
      },
      LAG_BOUND_MS,
      100,
    );
    if (!seen) throw new Error(`the search never answered as expected: ${last?.status} ${last?.text}`);
    return last!;
  }

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '1000' });
    owner = await createFirstAdmin(t.http);
    stranger = await createFirstAdmin(t.http);
    channel = await channelOf(owner);
    strangerChannel = await channelOf(stranger);
    publishable = await key(owner);
    strangerPublishable = await key(stranger);
  });
  afterAll(() => t.close());

  it('finds a new project within a few seconds of its write (the lag, printed)', async () => {
    const title = word('lag');
    const started = Date.now();
    const id = await project({ primaryTitle: `Lag probe ${title}` });
    await until(
      () => search(`q=${title}`),
      (found) => found.includes(id),
    );
    const lag = Date.now() - started;
    console.log(`search lag: a created project was found ${lag} ms after its POST was sent`);
    expect(lag).toBeLessThan(LAG_BOUND_MS);
  });

  it('finds by words, prefixes and one typo in words of five letters or more, over the title, description and tags', async () => {
    const tag = word('tag');
    const id = await project({
      primaryTitle: 'Glacier expedition',
      description: 'Icebergs of the northern fjords',
      topicIds: [tag],
    });
    await until(
      () => search(`q=glacier`),
      (found) => found.includes(id),
    );
    for (const q of [
      'glacier',
      'GLACIER expedition',
      'glac',
      'exped',
      'icebergs fjords',
      'fjord',
      tag,
      'glaceir',
      'expediton',
      'icebregs',
    ]) {
      expect({ q, found: ids(await search(`q=${encodeURIComponent(q)}`)).includes(id) }).toEqual({ q, found: true });
    }
    // Two typos, or a typo in a word under five letters: no match.
    for (const q of ['glazeir', 'fjrod', 'glacier nothingness']) {
      expect({ q, found: ids(await search(`q=${encodeURIComponent(q)}`)).includes(id) }).toEqual({ q, found: false });
    }
  });

  it('narrows by each filter, and sorts', async () => {
    const tag = word('filter');
    const other = await channelOf(owner);
    const parent = await project({ primaryTitle: `Parent ${tag}`, status: 'published' });
    const child = await project({
      primaryTitle: `Child ${tag}`,
      parentId: parent,
      projectTypeId: 'album',
      access: 'linkPrivate',
    });
    const elsewhere = await project(
      { primaryTitle: `Elsewhere ${tag}`, status: 'archived', access: 'permissions' },
      owner,
      other,
    );
    await until(
      () => search(`q=${tag}`),
      (found) => found.length === 3,
    );
    const narrowed = async (filter: string) => ids(await search(`q=${tag}&${filter}`)).sort();
    expect(await narrowed('status=published')).toEqual([parent]);
    expect(await narrowed('status=archived')).toEqual([elsewhere]);
    expect(await narrowed('access=linkPrivate')).toEqual([child]);
    expect(await narrowed('projectTypeId=album')).toEqual([child]);
    expect(await narrowed(`channelId=${other}`)).toEqual([elsewhere]);
    expect(await narrowed(`parentId=${parent}`)).toEqual([child]);
    expect(await narrowed(`createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual(
      [],
    );
    expect(await narrowed(`createdBefore=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual(
      [parent, child, elsewhere].sort(),
    );
    expect(ids(await search(`q=${tag}&sort=oldest`))).toEqual([parent, child, elsewhere]);
    expect(ids(await search(`q=${tag}&sort=newest`))).toEqual([elsewhere, child, parent]);
    // An empty q lists by the filters alone.
    expect(ids(await search(`channelId=${other}`))).toEqual([elsewhere]);
  });

  it("answers in Stripe's shape, pages with next_page, and items shaped as GET /projects/{projectId}", async () => {
    const tag = word('page');
    const made = [
      await project({ primaryTitle: `One ${tag}` }),
      await project({ primaryTitle: `Two ${tag}` }),
      await project({ primaryTitle: `Three ${tag}` }),
    ];
    await until(
      () => search(`q=${tag}`),
      (found) => found.length === 3,
    );
    const first = ok(await search(`q=${tag}&limit=2&sort=oldest`)).body;
    expect(Object.keys(first).sort()).toEqual(['data', 'has_more', 'next_page', 'total_count']);
    expect(first).toMatchObject({ has_more: true, total_count: 3 });
    expect(first.data[0]).toEqual(ok(await t.http.get(`/projects/${made[0]}`, { token: owner.token })).body);
    const second = ok(await search(`q=${tag}&limit=2&sort=oldest&page=${first.next_page}`)).body;
    expect(second).toMatchObject({ has_more: false, next_page: null, total_count: 3 });
    expect([...first.data, ...second.data].map((item: { _id: string }) => item._id)).toEqual(made);
    expectValidationError(await search(`q=${tag}&page=notacursor`), 'page');
    expectValidationError(await search('limit=0'), 'limit');
    expectValidationError(await search('limit=101'), 'limit');
    expectValidationError(await search('sort=best'), 'sort');
    expectValidationError(await search('colour=blue'), 'colour');
  });

  it("never finds another tenant's project, in data or total_count", async () => {
    const tag = word('tenant');
    const mine = await project({ primaryTitle: `Mine ${tag}`, status: 'published' });
    const theirs = await project({ primaryTitle: `Theirs ${tag}`, status: 'published' }, stranger, strangerChannel);
    await until(
      () => search(`q=${tag}`, stranger),
      (found) => found.includes(theirs),
    );
    const res = await until(
      () => search(`q=${tag}`),
      (found) => found.includes(mine),
    );
    expect(ids(res)).toEqual([mine]);
    expect(res.body.total_count).toBe(1);
    expect(ok(await search(`q=${tag}`, stranger)).body).toMatchObject({ total_count: 1, data: [{ _id: theirs }] });
    const asViewer = await t.http.get(`/viewer/search?q=${tag}`, { token: strangerPublishable });
    expect(ok(asViewer).body).toMatchObject({ total_count: 1, data: [{ id: theirs }] });
  });

  it('a deleted project leaves the results', async () => {
    const tag = word('gone');
    const id = await project({ primaryTitle: `Doomed ${tag}` });
    await until(
      () => search(`q=${tag}`),
      (found) => found.includes(id),
    );
    ok(await t.http.delete(`/projects/${id}`, { token: owner.token }));
    const res = await until(
      () => search(`q=${tag}`),
      (found) => found.length === 0,
    );
    expect(res.body.total_count).toBe(0);
  });

  describe('as a viewer', () => {
    const viewerSearch = (query: string, headers: Record<string, string> = {}) =>
      t.http.get(`/viewer/search?${query}`, { token: publishable, headers });

    it('shows only what the viewer rules let the viewer see, and counts nothing hidden', async () => {
      const tag = word('viewer');
      const shown = await project({ primaryTitle: `Shown ${tag}`, status: 'published' });
      const draft = await project({ primaryTitle: `Draft ${tag}`, status: 'draft' });
      const archived = await project({ primaryTitle: `Archived ${tag}`, status: 'archived' });
      const linked = await project({ primaryTitle: `Linked ${tag}`, status: 'published', access: 'linkPrivate' });
      const granted = await project({ primaryTitle: `Granted ${tag}`, status: 'published', access: 'permissions' });
      const hiddenParent = await project({ primaryTitle: `Hidden parent ${tag}`, status: 'draft' });
      const underHidden = await project({
        primaryTitle: `Under hidden ${tag}`,
        status: 'published',
        parentId: hiddenParent,
      });
      const underShown = await project({ primaryTitle: `Under shown ${tag}`, status: 'published', parentId: shown });
      await until(
        () => search(`q=${tag}`),
        (found) => found.length === 8,
      );

      const seen = await viewerSearch(`q=${tag}&sort=oldest`);
      expect(ids(seen)).toEqual([shown, underShown]);
      expect(seen.body).toMatchObject({ total_count: 2, has_more: false });
      expect(Object.keys(seen.body.data[0])).not.toContain('status');
      for (const hidden of [draft, archived, linked, granted, hiddenParent, underHidden])
        expect(ids(seen)).not.toContain(hidden);

      // Filters a viewer may not use are refused, not ignored.
      expectValidationError(await viewerSearch(`q=${tag}&status=draft`), 'status');

      // A share link opens its project, and only it.
      const link = ok(await t.http.post(`/projects/${linked}/share-links`, {}, { token: owner.token }), 201).body
        .token as string;
      const withLink = await viewerSearch(`q=${tag}&sort=oldest`, { 'X-Share-Token': link });
      expect(ids(withLink)).toEqual([shown, linked, underShown]);
      expect(withLink.body.total_count).toBe(3);

      // Paging counts only what is visible.
      const firstPage = ok(await viewerSearch(`q=${tag}&sort=oldest&limit=1`)).body;
      expect(firstPage).toMatchObject({ total_count: 2, has_more: true });
      const secondPage = ok(await viewerSearch(`q=${tag}&sort=oldest&limit=1&page=${firstPage.next_page}`)).body;
      expect(secondPage.data.map((item: { id: string }) => item.id)).toEqual([underShown]);
      expect(secondPage).toMatchObject({ has_more: false, next_page: null });
    });

    it('stops showing a project once it is unpublished, whatever the index says yet', async () => {
      const tag = word('unpub');
      const id = await project({ primaryTitle: `Soon hidden ${tag}`, status: 'published' });
      await until(
        () => viewerSearch(`q=${tag}`),
        (found) => found.includes(id),
      );
      ok(await t.http.put(`/projects/${id}`, { status: 'draft' }, { token: owner.token }));
      // Right after the change, before the index may have it: the viewer rules read the record.
      const res = await viewerSearch(`q=${tag}`);
      expect(ids(res)).toEqual([]);
      expect(res.body.total_count).toBe(0);
    });

    it('needs a publishable key', async () => {
      expectError(await t.http.get('/viewer/search?q=x'), 401);
      expectError(await t.http.get('/viewer/search?q=x', { token: owner.token }), 403);
    });
  });

  describe("customers and payments, in Stripe's query language", () => {
    let jenny: string;
    let other: string;
    let usd: string;
    let failed: string;
    let eur: string;

    async function customer(body: Record<string, unknown>): Promise<string> {
      return ok(await t.http.post('/v1/customers', body, { token: owner.token }), 201).body.data.id;
    }

    async function payment(amount: number, currency: string, cardNumber: string): Promise<string> {
      const payer = await customer({ email: uniqueEmail('payer') });
      ok(
        await t.http.post(
          '/v1/cards',
          { customer: payer, cardNumber, expMonth: '12', expYear: '2035', cvc: '123' },
          { token: owner.token },
        ),
        201,
      );
      return ok(
        await t.http.post(
          '/api/v1/payments',
          { amount, currency, customer: payer, confirm: true },
          { token: owner.token },
        ),
        201,
      ).body.id;
    }

    const customers = (query: string, user = owner) =>
      t.http.get(`/v1/customers/search?query=${encodeURIComponent(query)}`, { token: user.token });
    const payments = (query: string, user = owner) =>
      t.http.get(`/v1/payments/search?query=${encodeURIComponent(query)}`, { token: user.token });

    beforeAll(async () => {
      jenny = await customer({
        email: 'jenny.rosen@example.com',
        firstName: 'Jenny',
        lastName: 'Rosen',
        phone: '+15555550100',
      });
      other = await customer({ email: 'max.mustermann@example.com', firstName: 'Max', lastName: 'Mustermann' });
      usd = await payment(25, 'usd', '4242424242424242');
      failed = await payment(5, 'usd', '4000000000000002');
      eur = await payment(30, 'eur', '4242424242424242');
      // A stranger's customer with the same email: never found by the owner.
      await t.http.post(
        '/v1/customers',
        { email: 'jenny.rosen@example.com', firstName: 'Jenny' },
        { token: stranger.token },
      );
      await until(
        () => payments("status:'succeeded' OR status:'failed'"),
        (found) => [usd, failed, eur].every((id) => found.includes(id)),
      );
      await until(
        () => customers("email:'max.mustermann@example.com'"),
        (found) => found.includes(other),
      );
    });

    it("answers the customers examples of Stripe's documentation as Stripe would", async () => {
      const res = await customers("email:'jenny.rosen@example.com'");
      expect(ids(res)).toEqual([jenny]);
      expect(res.body.total_count).toBe(1);
      expect(res.body.data[0]).toEqual(
        ok(await t.http.get(`/v1/customers/${jenny}`, { token: owner.token })).body.data,
      );
      expect(ids(await customers("email:'JENNY.ROSEN@example.com'"))).toEqual([jenny]);
      expect(ids(await customers("name~'jen'"))).toEqual([jenny]);
      expect(ids(await customers("name:'jenny rosen'"))).toEqual([jenny]);
      expect(ids(await customers("phone:'+15555550100'"))).toEqual([jenny]);
      expect(ids(await customers('created>1690000000'))).toEqual(expect.arrayContaining([jenny, other]));
      expect(ids(await customers(`created<${Math.floor(Date.now() / 1000) - 3600}`))).toEqual([]);
      // No customer carries metadata here: a metadata clause parses and matches none.
      expect(ok(await customers("metadata['order_id']:'6735'")).body).toEqual({
        data: [],
        has_more: false,
        next_page: null,
        total_count: 0,
      });
      expect(ids(await customers("-email:'jenny.rosen@example.com' AND name~'muster'"))).toEqual([other]);
      expect(
        ids(await customers("email:'jenny.rosen@example.com' OR email:'max.mustermann@example.com'")).sort(),
      ).toEqual([jenny, other].sort());
    });

    it("answers the payments examples of Stripe's documentation as Stripe would (amounts in minor units)", async () => {
      expect(ids(await payments("amount>1000 AND currency:'usd'"))).toEqual([usd]);
      expect(ids(await payments("status:'succeeded'")).sort()).toEqual([usd, eur].sort());
      expect(ids(await payments("-status:'failed'")).sort()).toEqual(expect.arrayContaining([usd, eur]));
      expect(ids(await payments("-status:'failed'"))).not.toContain(failed);
      expect(ids(await payments('amount:500'))).toEqual([failed]);
      expect(ids(await payments("currency:'EUR'"))).toEqual([eur]);
      const payment = ok(await t.http.get(`/api/v1/payments/${usd}`, { token: owner.token })).body;
      expect(ids(await payments(`customer:'${payment.customer}'`))).toEqual([usd]);
      expect(ok(await payments(`customer:'${payment.customer}'`)).body.data[0]).toEqual(payment);
      expect(ids(await payments("status:'succeeded'", stranger))).toEqual([]);
    });

    it('answers 400 naming the position and what was expected, or the unknown field', async () => {
      const unquoted = await customers('email:jenny');
      expectError(unquoted, 400, 'The query does not parse at position 6: expected a quoted value');
      expect(unquoted.body.code).toBe('search_query_invalid');
      expectError(
        await customers("email:'a' AND name:'b' OR phone:'c'"),
        400,
        /position 23: expected AND: AND and OR cannot be mixed/,
      );
      expectError(await customers("name~'je'"), 400, /position 5: expected a substring of at least 3 characters/);
      expectError(await customers("colour:'blue'"), 400, /Unknown search field colour/);
      expectError(await payments("amount~'100'"), 400, /amount is numeric/);
      expectError(await payments('amount:10.5'), 400, /minor units, a whole number \(1050 for 10.50 USD\), not 10.5$/);
      expectValidationError(await t.http.get('/v1/customers/search', { token: owner.token }), 'query');
      expectValidationError(
        await t.http.get("/v1/customers/search?query=email:'a'&limit=500", { token: owner.token }),
        'limit',
      );
      expectValidationError(
        await t.http.get("/v1/payments/search?query=status:'a'&starting_after=x", { token: owner.token }),
        'starting_after',
      );
    });
  });
});
