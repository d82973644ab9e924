import { randomBytes } from 'node:crypto';
import { OCTETS, pathOf, settledAsset, TUS } from '../support/assets';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import type { HttpResponse, RequestOptions } from '../support/http';
import { addPasskey, SoftwareAuthenticator } from '../support/passkeys';
import { Browser, enableTotp, sessionCookie } from '../support/sessions';
import { createTestApp, TestApp } from '../support/test-app';
import { SearchHistoryService } from '../../src/search-history/search-history.service';

/**
 * The isolation matrix. Every operation of the served OpenAPI document (so a route added later is
 * covered without editing this file) is called with tenant A's ids by callers who must not see
 * them: the owner of another account, A's own owner acting in another project of the account
 * (`X-Project-Id`), and API keys of those projects. Each answer must be exactly the answer the same
 * caller gets for an id that does not exist (same status, same body), lists must never carry one of
 * A's ids, and A's records must be unchanged afterwards. A public operation takes no credential of
 * the caller's, so no caller is a stranger to it: the signed asset content URL, whose signed grant
 * names its own tenant, has a test of its own below (no edit of the grant reaches A's asset).
 */

type Operation = { operationId: string; security?: Record<string, string[]>[]; parameters?: Parameter[] };
type Parameter = { name: string; in: string; required?: boolean };
type Endpoint = { path: string; method: string; operation: Operation };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const UNKNOWN_ID = '6650c0ffee00000000000bad';

/** Bodies that pass validation, so a request reaches the lookup of its ids. Others send `{}`. */
const BODIES: Record<string, (ids: FixtureIds) => unknown> = {
  createProject: () => ({ primaryTitle: 'Matrix', projectTypeId: 'album' }),
  createAsset: () => ({ kind: 'text', title: 'Matrix', fileName: 'matrix.txt', size: 5, mimeType: 'text/plain' }),
  updateAsset: () => ({ title: 'Matrix' }),
  createInvitation: () => ({ email: `matrix.${randomBytes(4).toString('hex')}@example.com`, role: 'developer' }),
  transferOwnership: (ids) => ({ userId: ids.memberUserId }),
  changeMemberRole: () => ({ role: 'manager' }),
  createApiKey: () => ({ name: 'matrix' }),
  createGrant: () => ({ email: `matrix.${randomBytes(4).toString('hex')}@example.com`, role: 'viewer' }),
  rollApiKey: () => ({ expiresInHours: 1 }),
};

/**
 * Operations left out, each with its reason. Public routes hold no tenant data; the caller's own
 * user, accounts list and account creation are not id-bearing and are the caller's by definition.
 */
const EXEMPT: Record<string, string> = {
  login: 'public: no tenant data',
  signup: 'public: no tenant data',
  signupAlias: 'public: no tenant data',
  createAccount: 'creates an account of the caller: no id of anyone else',
  acceptInvitation: 'takes a token, not an id: invitation misuse is tested in the accounts suite',
};

/**
 * Required query parameters that are no id: the searches in Stripe's query language take `query`,
 * given one that matches every record the caller may see, so they are covered as the lists are.
 */
const LIST_QUERIES: Record<string, string> = { query: 'created>0' };

/** Account-level and user-level routes (sessions): the account or the user is their boundary, not the project, so another project of the same account is not a stranger to them. */
const ACCOUNT_LEVEL = /^\/api\/v1\/(accounts|platform|me|sessions)/;

interface FixtureIds {
  accountId: string;
  projectId: string;
  memberUserId: string;
  invitationId: string;
  keyId: string;
  client: string;
  collection: string;
  channel: string;
  contentProject: string;
  asset: string;
  customer: string;
  card: string;
  payment: string;
  event: string;
  webhookEndpoint: string;
  webhookDelivery: string;
  /** A dashboard session of the owner. */
  session: string;
  /** A passkey of the owner. */
  passkey: string;
  shareLink: string;
  grant: string;
  /** A search in the owner's history (recorded through the port the search routes call). */
  searchEntry: string;
}

describe('tenant isolation matrix (every operation of the OpenAPI document)', () => {
  let t: TestApp;
  let document: { paths: Record<string, Record<string, Operation>> };
  let ownerA: TestUser;
  let ownerB: TestUser;
  let ids: FixtureIds;
  let idsB: FixtureIds;
  let secondProjectA: string;
  let keyB: string;
  let keySecondProjectA: string;
  let publishableA: string;
  let publishableB: string;
  let publishableSecondProjectA: string;
  let ownViewerReads: number[];
  let ownSearchesFound: boolean;
  let snapshot: Record<string, string>;

  /** Each owner's token from a login with a code, made with their fixtures. */
  const strongTokens = new Map<string, string>();

  function ok<T>(res: HttpResponse<T>, label: string): HttpResponse<T> {
    if (res.status >= 300) throw new Error(`${label} failed: ${res.status} ${res.text}`);
    return res;
  }

  async function createFixtures(owner: TestUser): Promise<FixtureIds> {
    const as = { token: owner.token };
    const client = ok(await t.http.post('/clients', { name: 'Acme', email: 'acme@example.com' }, as), 'client').body.id;
    const collection = ok(await t.http.post('/collections', { name: 'Weather' }, as), 'collection').body.id;
    const channel = ok(
      await t.http.post(
        '/channels',
        {
          clientId: client,
          name: 'Studio',
          username: `studio_${randomBytes(4).toString('hex')}`,
          avatarUrl: 'https://cdn.example.com/a.png',
          role: 'creator',
        },
        as,
      ),
      'channel',
    ).body.id;
    // Published and public: the owner's own publishable key sees it, so a stranger's 404 is the isolation's.
    const contentProject = ok(
      await t.http.post(
        `/channels/${channel}/projects`,
        { primaryTitle: 'Blue Hours', projectTypeId: 'album', status: 'published' },
        as,
      ),
      'project',
    ).body._id;
    // A ready asset: its bytes uploaded and processed before the snapshot of A's records is taken.
    const created = ok(
      await t.http.post(
        `/projects/${contentProject}/assets`,
        { kind: 'text', title: 'Notes', fileName: 'notes.txt', size: 5, mimeType: 'text/plain' },
        as,
      ),
      'asset',
    ).body;
    ok(
      await t.http.post(pathOf(created.upload.url), undefined, {
        raw: Buffer.from('hello'),
        headers: { ...TUS, ...OCTETS, 'upload-length': '5' },
      }),
      'asset upload',
    );
    const asset = (await settledAsset(t.http, created.asset.id, owner.token)).id as string;
    const shareLink = ok(await t.http.post(`/projects/${contentProject}/share-links`, {}, as), 'share link').body.id;
    const grant = ok(
      await t.http.post(`/projects/${contentProject}/grants`, { email: 'viewer@example.com', role: 'viewer' }, as),
      'grant',
    ).body.id;
    const customer = ok(await t.http.post('/v1/customers', { email: 'payer@example.com' }, as), 'customer').body.data
      .id;
    const card = ok(
      await t.http.post(
        '/v1/cards',
        { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
        as,
      ),
      'card',
    ).body.data.id;
    const payment = ok(
      await t.http.post('/api/v1/payments', { amount: 12.5, currency: 'usd', customer, confirm: true }, as),
      'payment',
    ).body.id;
    // A port nothing listens on: its deliveries fail at once, and nothing is sent anywhere.
    const webhookEndpoint = ok(
      await t.http.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', enabledEvents: ['*'] }, as),
      'webhook endpoint',
    ).body.data.id;
    const webhookDelivery = ok(
      await t.http.post(`/v1/webhook-endpoints/${webhookEndpoint}/test`, {}, as),
      'webhook test',
    ).body.data.id;
    const member = await createUser(t.http, 'developer', owner.token);
    const invitation = ok(
      await t.http.post(
        `/api/v1/accounts/${owner.accountId}/invitations`,
        { email: `pending.${randomBytes(4).toString('hex')}@example.com`, role: 'developer' },
        as,
      ),
      'invitation',
    ).body.data.id;
    const key = ok(
      await t.http.post(`/api/v1/platform/projects/${owner.projectId}/keys`, { name: 'fixture' }, as),
      'key',
    ).body.data.id;
    const signedIn = ok(
      await t.http.post('/api/v1/sessions', { email: owner.email, password: owner.password }),
      'session',
    );
    const browser = new Browser(t.http, sessionCookie(signedIn)!);
    const passkey = (await addPasskey(browser, new SoftwareAuthenticator())).id;
    // With a factor, the owner's token from the password alone no longer reaches the step-up routes: the matrix calls
    // them with a token from the password and a code, as such a user has.
    const { recoveryCodes } = await enableTotp(browser);
    strongTokens.set(
      owner.id,
      ok(
        await t.http.post('/api/v1/login', {
          email: owner.email,
          password: owner.password,
          recoveryCode: recoveryCodes[0],
        }),
        'login with a code',
      ).body.accessToken,
    );
    // Adding factors renewed the session: its id now.
    const session = (await browser.get('/api/v1/sessions')).body.data.find(
      (listed: { current: boolean }) => listed.current,
    ).id;
    await t.app
      .get(SearchHistoryService)
      .record(
        { userId: owner.id, accountId: owner.accountId },
        { surface: 'customers', query: "email:'payer@example.com'", filters: {} },
      );
    const searchEntry = ok(await t.http.get('/api/v1/me/search-history', as), 'search history').body.data[0].id;
    return {
      accountId: owner.accountId,
      projectId: owner.projectId,
      memberUserId: member.id,
      invitationId: invitation,
      keyId: key,
      client,
      collection,
      channel,
      contentProject,
      asset,
      customer,
      card,
      payment,
      event: ok(await t.http.get('/v1/events?limit=1', as), 'event').body.data[0].id,
      webhookEndpoint,
      webhookDelivery,
      session,
      passkey,
      shareLink,
      grant,
      searchEntry,
    };
  }

  /** Which of A's ids a path parameter names, from the parameter's name and the path it is in. */
  function idFor(name: string, path: string, fixture: FixtureIds): string {
    switch (name) {
      case 'accountId':
        return fixture.accountId;
      case 'userId':
        return fixture.memberUserId;
      case 'invitationId':
        return fixture.invitationId;
      case 'keyId':
        return fixture.keyId;
      case 'clientId':
        return fixture.client;
      case 'channelId':
        return fixture.channel;
      case 'project_id':
      case 'projectId':
        return fixture.contentProject;
      case 'customer':
        return fixture.customer;
      case 'deliveryId':
        return fixture.webhookDelivery;
      case 'assetId':
        return fixture.asset;
      case 'shareLinkId':
        return fixture.shareLink;
      case 'grantId':
        return fixture.grant;
    }
    if (path.startsWith('/api/v1/me/search-history/')) return fixture.searchEntry;
    const resource = path.split('/').filter((part) => part && part !== 'api' && part !== 'v1')[0];
    const byResource: Record<string, string> = {
      customers: fixture.customer,
      cards: fixture.card,
      payments: fixture.payment,
      channels: fixture.channel,
      projects: fixture.contentProject,
      collections: fixture.collection,
      clients: fixture.client,
      events: fixture.event,
      'webhook-endpoints': fixture.webhookEndpoint,
      platform: fixture.projectId,
      sessions: fixture.session,
      me: fixture.passkey,
    };
    const id = byResource[resource];
    if (!id) throw new Error(`the matrix does not know which id ${name} of ${path} names: teach idFor`);
    return id;
  }

  function endpoints(): Endpoint[] {
    return Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] })),
    );
  }

  function isPublic(operation: Operation): boolean {
    return operation.security?.some((requirement) => Object.keys(requirement).length === 0) ?? false;
  }

  /** The URL with every path parameter and required query id filled by `pick`. */
  function url(endpoint: Endpoint, pick: (name: string) => string): string {
    let result = endpoint.path.replace(/\{([^}]+)\}/g, (_match, name: string) => pick(name));
    const query = (endpoint.operation.parameters ?? []).filter(
      (parameter) => parameter.in === 'query' && parameter.required,
    );
    const value = (name: string) => (name in LIST_QUERIES ? encodeURIComponent(LIST_QUERIES[name]) : pick(name));
    if (query.length) result += '?' + query.map((parameter) => `${parameter.name}=${value(parameter.name)}`).join('&');
    return result;
  }

  function hasIds(endpoint: Endpoint): boolean {
    return (
      /\{/.test(endpoint.path) ||
      (endpoint.operation.parameters ?? []).some(
        (parameter) => parameter.in === 'query' && parameter.required && !(parameter.name in LIST_QUERIES),
      )
    );
  }

  function call(endpoint: Endpoint, path: string, options: RequestOptions): Promise<HttpResponse> {
    const makeBody = BODIES[endpoint.operation.operationId];
    const body = ['post', 'put', 'patch'].includes(endpoint.method) ? (makeBody ? makeBody(ids) : {}) : undefined;
    return t.http.request(endpoint.method.toUpperCase(), path, body, options);
  }

  /** Status and body, without what differs between any two calls. */
  function comparable(res: HttpResponse): unknown {
    return { status: res.status, body: res.body };
  }

  const A_IDS = (): string[] => [
    ids.accountId,
    ids.projectId,
    ids.invitationId,
    ids.keyId,
    ids.client,
    ids.collection,
    ids.channel,
    ids.contentProject,
    ids.asset,
    ids.customer,
    ids.card,
    ids.payment,
    ids.event,
    ids.webhookEndpoint,
    ids.webhookDelivery,
    ids.session,
    ids.shareLink,
    ids.grant,
    ids.searchEntry,
  ];

  /** An id of the right form that names nothing: events have ids of their own form. */
  function unknownIdIn(path: string): string {
    return path.startsWith('/v1/events/') ? `evt_${UNKNOWN_ID}` : UNKNOWN_ID;
  }

  async function readAll(): Promise<Record<string, string>> {
    const as = { token: ownerA.token };
    const reads: Record<string, string> = {
      client: `/clients/${ids.client}`,
      collection: `/collections/${ids.collection}`,
      channel: `/channels/${ids.channel}`,
      contentProject: `/projects/${ids.contentProject}`,
      asset: `/assets/${ids.asset}`,
      assets: `/projects/${ids.contentProject}/assets`,
      assetContent: `/assets/${ids.asset}/content`,
      customer: `/v1/customers/${ids.customer}`,
      card: `/v1/cards/${ids.card}`,
      payment: `/api/v1/payments/${ids.payment}`,
      event: `/v1/events/${ids.event}`,
      webhookEndpoint: `/v1/webhook-endpoints/${ids.webhookEndpoint}`,
      account: `/api/v1/accounts/${ids.accountId}`,
      members: `/api/v1/accounts/${ids.accountId}/members`,
      invitations: `/api/v1/accounts/${ids.accountId}/invitations`,
      project: `/api/v1/platform/projects/${ids.projectId}`,
      keys: `/api/v1/platform/projects/${ids.projectId}/keys`,
      sessions: '/api/v1/sessions',
      passkeys: '/api/v1/me/passkeys',
      searchHistory: '/api/v1/me/search-history',
      shareLinks: `/projects/${ids.contentProject}/share-links`,
      grants: `/projects/${ids.contentProject}/grants`,
    };
    const out: Record<string, string> = {};
    for (const [name, path] of Object.entries(reads)) out[name] = ok(await t.http.get(path, as), `read ${name}`).text;
    // A's own searches in A's second project (one of the callers below) run again what A searched
    // already, which moves those entries up with a new time: the entries themselves must not change.
    const history = JSON.parse(out.searchHistory) as {
      data: Array<{ id: string; searchedAt?: string }>;
      settings: unknown;
    };
    const entries = history.data.map(({ searchedAt: _at, ...entry }) => entry).sort((a, b) => a.id.localeCompare(b.id));
    out.searchHistory = JSON.stringify({ data: entries, settings: history.settings });
    return out;
  }

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '1000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    document = (await t.http.get('/docs-json')).body;
    ownerA = await createFirstAdmin(t.http);
    ownerB = await createFirstAdmin(t.http);
    ids = await createFixtures(ownerA);
    idsB = await createFixtures(ownerB);
    ownerA = { ...ownerA, token: strongTokens.get(ownerA.id)! };
    ownerB = { ...ownerB, token: strongTokens.get(ownerB.id)! };
    secondProjectA = ok(
      await t.http.post('/api/v1/platform/projects', { name: 'Second' }, { token: ownerA.token }),
      'second project',
    ).body.data.id;
    keyB = ok(
      await t.http.post(`/api/v1/platform/projects/${ownerB.projectId}/keys`, { name: 'b' }, { token: ownerB.token }),
      'key b',
    ).body.data.key;
    keySecondProjectA = ok(
      await t.http.post(`/api/v1/platform/projects/${secondProjectA}/keys`, { name: 'a2' }, { token: ownerA.token }),
      'key a2',
    ).body.data.key;
    const publishableKey = async (owner: TestUser, projectId: string) =>
      ok(
        await t.http.post(
          `/api/v1/platform/projects/${projectId}/keys`,
          { name: 'viewer app', kind: 'publishable' },
          { token: owner.token },
        ),
        'publishable key',
      ).body.data.key as string;
    publishableA = await publishableKey(ownerA, ownerA.projectId);
    publishableB = await publishableKey(ownerB, ownerB.projectId);
    publishableSecondProjectA = await publishableKey(ownerA, secondProjectA);
    // Before the snapshot: the key's use is recorded on it (lastUsedAt).
    ownViewerReads = [
      (await t.http.get(`/viewer/projects/${ids.contentProject}`, { token: publishableA })).status,
      (await t.http.get(`/viewer/projects/${ids.contentProject}/children`, { token: publishableA })).status,
      (await t.http.get(`/viewer/assets/${ids.asset}/content`, { token: publishableA })).status,
    ];
    // The searches answer from an index that follows writes within a second or so: A's own searches
    // find A's records first, so the strangers' finding none of them is isolation, not lag.
    const searches: Array<[string, string, string]> = [
      ['/projects/search', ids.contentProject, ownerA.token],
      ['/viewer/search', ids.contentProject, publishableA],
      [`/v1/customers/search?query=${encodeURIComponent(LIST_QUERIES.query)}`, ids.customer, ownerA.token],
      [`/v1/payments/search?query=${encodeURIComponent(LIST_QUERIES.query)}`, ids.payment, ownerA.token],
    ];
    const deadline = Date.now() + 10_000;
    ownSearchesFound = false;
    while (!ownSearchesFound && Date.now() < deadline) {
      const answers = await Promise.all(searches.map(([path, , token]) => t.http.get(path, { token })));
      ownSearchesFound = answers.every((res, index) => res.status === 200 && res.text.includes(searches[index][1]));
      if (!ownSearchesFound) await new Promise((done) => setTimeout(done, 100));
    }
    snapshot = await readAll();
  });
  afterAll(() => t.close());

  it('covers every operation of the document, apart from a short list of exemptions with reasons', () => {
    const all = endpoints();
    expect(all.length).toBeGreaterThan(40);
    const ids = all.map((endpoint) => endpoint.operation.operationId);
    for (const exempt of Object.keys(EXEMPT)) expect(ids).toContain(exempt);
    expect(Object.keys(EXEMPT).length).toBeLessThanOrEqual(6);
  });

  it("A's own searches find A's records: the strangers' finding none of them is isolation, not the index's lag", () => {
    expect(ownSearchesFound).toBe(true);
  });

  const strangers: { name: string; options: () => RequestOptions; accountLevel: boolean }[] = [
    { name: 'the owner of another account', options: () => ({ token: ownerB.token }), accountLevel: true },
    {
      name: "A's owner acting in another project of A's account (X-Project-Id)",
      options: () => ({ token: ownerA.token, headers: { 'x-project-id': secondProjectA } }),
      accountLevel: false,
    },
    { name: "an API key of another account's project", options: () => ({ token: keyB }), accountLevel: true },
    {
      name: "an API key of another project of A's account",
      options: () => ({ token: keySecondProjectA }),
      accountLevel: true,
    },
    {
      name: "a publishable key of another account's project",
      options: () => ({ token: publishableB }),
      accountLevel: true,
    },
    {
      name: "a publishable key of another project of A's account",
      options: () => ({ token: publishableSecondProjectA }),
      accountLevel: true,
    },
  ];

  it("A's own publishable key sees A's published project and its asset's bytes through the viewer routes: the strangers' 404 is isolation, not a hidden project", () => {
    expect(ownViewerReads).toEqual([200, 200, 200]);
  });

  it("a signed content URL opens the one asset it was signed for, whoever sends it; its grant edited to name A's asset answers as an unknown one", async () => {
    expect(isPublic(document.paths['/asset-content/{signedGrant}'].get)).toBe(true);
    const grantOf = (url: string) => new URL(url).pathname.split('/').pop()!;
    const grantB = grantOf(
      ok(await t.http.get(`/assets/${idsB.asset}/content-url`, { token: ownerB.token }), 'content url of B').body.url,
    );
    const [, , , expires, signature] = grantB.split('.');
    const read = (grant: string, options: RequestOptions = {}) => t.http.get(`/asset-content/${grant}`, options);
    // The capability is the URL: B's reads B's asset with no token, or with A's.
    expect((await read(grantB)).status).toBe(200);
    expect((await read(grantB, { token: ownerA.token })).status).toBe(200);
    const unknown = comparable(await read([UNKNOWN_ID, UNKNOWN_ID, UNKNOWN_ID, expires, signature].join('.')));
    expect(unknown).toMatchObject({ status: 404 });
    const forged = [
      [ids.asset, idsB.accountId, idsB.projectId],
      [ids.asset, ids.accountId, ids.projectId],
    ].map((named) => [...named, expires, signature].join('.'));
    for (const grant of forged) {
      expect(comparable(await read(grant))).toEqual(unknown);
      expect(comparable(await read(grant, { token: ownerA.token }))).toEqual(unknown);
    }
  });

  describe.each(strangers)('as $name', ({ options, accountLevel }) => {
    function covered(): Endpoint[] {
      // Deletes last, so every other operation still meets A's records.
      return endpoints()
        .filter((endpoint) => !isPublic(endpoint.operation) && !EXEMPT[endpoint.operation.operationId])
        .filter((endpoint) => accountLevel || !ACCOUNT_LEVEL.test(endpoint.path))
        .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    }

    it("answers each id-bearing operation with A's ids exactly as with an unknown id", async () => {
      const mismatches: unknown[] = [];
      for (const endpoint of covered().filter(hasIds)) {
        const foreign = await call(
          endpoint,
          url(endpoint, (name) => idFor(name, endpoint.path, ids)),
          options(),
        );
        const unknown = await call(
          endpoint,
          url(endpoint, () => unknownIdIn(endpoint.path)),
          options(),
        );
        if (foreign.status < 300 && foreign.status !== unknown.status) {
          mismatches.push({ operation: endpoint.operation.operationId, leaked: comparable(foreign) });
        } else if (JSON.stringify(comparable(foreign)) !== JSON.stringify(comparable(unknown))) {
          mismatches.push({
            operation: endpoint.operation.operationId,
            foreign: comparable(foreign),
            unknown: comparable(unknown),
          });
        }
      }
      expect(mismatches).toEqual([]);
    });

    it("never shows one of A's records in a list or any other answer without ids", async () => {
      const leaks: unknown[] = [];
      for (const endpoint of covered().filter((endpoint) => !hasIds(endpoint) && endpoint.method === 'get')) {
        const res = await call(
          endpoint,
          url(endpoint, (name) => name),
          options(),
        );
        const found = A_IDS().filter((id) => res.text.includes(id));
        if (found.length) leaks.push({ operation: endpoint.operation.operationId, found });
      }
      expect(leaks).toEqual([]);
    });
  });

  it('leaves every record of A as it was', async () => {
    expect(await readAll()).toEqual(snapshot);
  });
});
