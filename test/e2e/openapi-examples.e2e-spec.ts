import { randomBytes } from 'node:crypto';
import { OCTETS, pathOf, pngFixture, settledAsset, TUS } from '../support/assets';
import { createFirstAdmin, createUnverifiedOwner, createUser, TestUser } from '../support/auth';
import { MailServer } from '../support/mail-server';
import type { HttpResponse } from '../support/http';
import { addPasskey, SoftwareAuthenticator } from '../support/passkeys';
import { Browser, enableTotp } from '../support/sessions';
import { createTestApp, TestApp } from '../support/test-app';
import { SearchHistoryService } from '../../src/search-history/search-history.service';

/**
 * Every example of the served OpenAPI document works for a fresh account: each operation is sent as
 * Swagger UI's "Try it out" would send it, from the document's examples (a body's own example, else
 * the examples of its fields), by a new account's owner. A record the request must name (a path id,
 * a required id in a body or a query) has no example, since none could name a record of the caller's:
 * it is filled with a record of that account, as the person trying it would. No answer may then be
 * 400, 403 or 404: those would be the example's fault. 409 and the like are answers about state
 * (an email already taken, a payment already confirmed), not about the example.
 */

type Schema = {
  $ref?: string;
  type?: string;
  example?: unknown;
  default?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
};
type Parameter = { name: string; in: string; required?: boolean; example?: unknown; schema?: Schema };
type Operation = {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: {
    content?: Record<string, { schema?: Schema; example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const REFUSED_BY_THE_EXAMPLE = [400, 403, 404];

interface Fixture {
  /** A passkey of the owner. */
  passkey: string;
  owner: TestUser;
  /** The codes of mailed links: a password reset under way (of another user than the owner) and a signup not verified yet. */
  resetCode: string;
  verificationCode: string;
  memberUserId: string;
  invitationId: string;
  invitationToken: string;
  keyId: string;
  client: string;
  collection: string;
  channel: string;
  contentProject: string;
  /** A ready image: its content and thumbnail can be read. */
  asset: string;
  /** The last segment of the ready asset's signed content URL (the reads' account only). */
  contentGrant?: string;
  customer: string;
  card: string;
  payment: string;
  event: string;
  webhookEndpoint: string;
  webhookDelivery: string;
  /** A dashboard session of the owner: its id, and its cookie for the routes only a session can use. */
  session: string;
  sessionCookie: string;
  /** Soft-deleted, for the restores. */
  deletedClient: string;
  shareLink: string;
  grant: string;
  /** The viewer routes' key: they take nothing else. */
  publishableKey: string;
  deletedCollection: string;
  /** A search in the owner's history (recorded through the port the search routes call). */
  searchEntry: string;
}

describe('the OpenAPI examples, sent as they are against a fresh account', () => {
  let t: TestApp;
  let document: Document;

  beforeAll(async () => {
    // Every example is sent from one address: the reset mail of the fixture must not meet the per-client mail limit.
    t = await createTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      MAIL_MAX_PER_CLIENT: '1000',
      MAIL_MAX_PER_EMAIL: '1000',
    });
    document = (await t.http.get('/docs-json')).body as Document;
  });
  afterAll(() => t.close());

  function ok<T>(res: HttpResponse<T>, label: string): HttpResponse<T> {
    if (res.status >= 300) throw new Error(`${label} failed: ${res.status} ${res.text}`);
    return res;
  }

  /** A new account's owner and one record of each kind in its default project. */
  async function fixture(readyAsset = false): Promise<Fixture> {
    const owner = await createFirstAdmin(t.http);
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
    // Published: viewers see it.
    const contentProject = ok(
      await t.http.post(
        `/channels/${channel}/projects`,
        { primaryTitle: 'Blue Hours', projectTypeId: 'album', status: 'published' },
        as,
      ),
      'project',
    ).body._id;
    const png = await pngFixture();
    const created = ok(
      await t.http.post(
        `/projects/${contentProject}/assets`,
        { kind: 'image', title: 'Cover', fileName: 'cover.png', size: png.length, mimeType: 'image/png' },
        as,
      ),
      'asset',
    ).body;
    // Processing takes a moment: only the reads' account waits for a ready asset.
    if (readyAsset) {
      ok(
        await t.http.post(pathOf(created.upload.url), undefined, {
          raw: png,
          headers: { ...TUS, ...OCTETS, 'upload-length': String(png.length) },
        }),
        'upload',
      );
      await settledAsset(t.http, created.asset.id, owner.token);
    }
    const asset = created.asset.id as string;
    const contentGrant = readyAsset
      ? new URL(ok(await t.http.get(`/assets/${asset}/content-url`, as), 'content url').body.url).pathname
          .split('/')
          .pop()
      : undefined;
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
      'endpoint',
    ).body.data.id;
    const webhookDelivery = ok(await t.http.post(`/v1/webhook-endpoints/${webhookEndpoint}/test`, {}, as), 'test event')
      .body.data.id;
    const member = await createUser(t.http, 'developer', owner.token);
    // The member collaborates on the channel: the operations on a collaborator name them.
    ok(
      await t.http.post(`/channels/${channel}/collaborators`, { userId: member.id, role: 'editor' }, as),
      'collaborator',
    );
    const invitation = ok(
      await t.http.post(
        `/api/v1/accounts/${owner.accountId}/invitations`,
        { email: `pending.${randomBytes(4).toString('hex')}@example.com`, role: 'developer' },
        as,
      ),
      'invitation',
    ).body.data.id;
    // An invitation for the owner, from another account: what accepting one takes.
    const inviter = await createFirstAdmin(t.http);
    const invitationToken = ok(
      await t.http.post(
        `/api/v1/accounts/${inviter.accountId}/invitations`,
        { email: owner.email, role: 'developer' },
        { token: inviter.token },
      ),
      'invitation for the owner',
    ).body.data.token;
    const keyId = ok(
      await t.http.post(`/api/v1/platform/projects/${owner.projectId}/keys`, { name: 'fixture' }, as),
      'key',
    ).body.data.id;
    const publishableKey = ok(
      await t.http.post(
        `/api/v1/platform/projects/${owner.projectId}/keys`,
        { name: 'viewer app', kind: 'publishable' },
        as,
      ),
      'key',
    ).body.data.key;
    const event = ok(await t.http.get('/v1/events?limit=1', as), 'event').body.data[0].id;
    const deletedClient = ok(await t.http.post('/clients', { name: 'Gone', email: 'gone@example.com' }, as), 'client')
      .body.id;
    ok(await t.http.patch(`/clients/${deletedClient}/soft-delete`, undefined, as), 'client soft delete');
    const deletedCollection = ok(await t.http.post('/collections', { name: 'Gone' }, as), 'collection').body.id;
    ok(await t.http.patch(`/collections/${deletedCollection}/soft-delete`, undefined, as), 'collection soft delete');
    // Following a mailed link takes its code: a reset of another user (the owner's tokens must keep working) and a new signup's verification.
    const mail = new MailServer();
    const resetting = await createFirstAdmin(t.http);
    ok(await t.http.post('/api/v1/password-resets', { email: resetting.email }), 'password reset');
    const resetCode = await mail.tokenFrom(resetting.email, /reset your password/i, '/reset-password');
    const unverified = await createUnverifiedOwner(t.http);
    const verificationCode = await mail.tokenFrom(unverified.email, /verify your email/i, '/verify-email');
    const signedIn = ok(
      await t.http.post('/api/v1/sessions', { email: owner.email, password: owner.password }),
      'session',
    );
    const browser = new Browser(t.http, /^sid=[^;]*/.exec(signedIn.headers.getSetCookie()[0])![0]);
    // Adding a factor renews the session (the browser keeps the new cookie) and leaves the token from the password alone short of step-up.
    const passkey = (await addPasskey(browser, new SoftwareAuthenticator())).id;
    const { recoveryCodes } = await enableTotp(browser);
    // What the owner then signs in with: the password and a code, as a person with a factor does.
    const strong = ok(
      await t.http.post('/api/v1/login', {
        email: owner.email,
        password: owner.password,
        recoveryCode: recoveryCodes[0],
      }),
      'login with a code',
    );
    const session = (await browser.get('/api/v1/sessions')).body.data.find(
      (listed: { current: boolean }) => listed.current,
    ).id;
    await t.app
      .get(SearchHistoryService)
      .record(
        { userId: owner.id, accountId: owner.accountId },
        { surface: 'customers', query: "email:'acme@example.com'", filters: {} },
      );
    const searchEntry = ok(
      await t.http.get('/api/v1/me/search-history', { token: strong.body.accessToken }),
      'search history',
    ).body.data[0].id;
    return {
      searchEntry,
      contentGrant,
      passkey,
      resetCode,
      verificationCode,
      shareLink,
      grant,
      publishableKey,
      session,
      sessionCookie: browser.cookie,
      deletedClient,
      deletedCollection,
      owner: { ...owner, token: strong.body.accessToken },
      memberUserId: member.id,
      invitationId: invitation,
      invitationToken,
      keyId,
      client,
      collection,
      channel,
      contentProject,
      asset,
      customer,
      card,
      payment,
      event,
      webhookEndpoint,
      webhookDelivery,
    };
  }

  /** The record a path parameter, or a required id without an example, names: by its name, else by the path's resource. */
  function recordFor(name: string, path: string, f: Fixture): string | undefined {
    const byName: Record<string, string> = {
      accountId: f.owner.accountId,
      userId: f.memberUserId,
      invitationId: f.invitationId,
      keyId: f.keyId,
      clientId: f.client,
      channelId: f.channel,
      projectId: f.contentProject,
      customer: f.customer,
      deliveryId: f.webhookDelivery,
      assetId: f.asset,
      shareLinkId: f.shareLink,
      grantId: f.grant,
      token: f.invitationToken,
    };
    if (name === 'signedGrant') return f.contentGrant;
    if (name === 'code') return path.includes('/email-verifications/') ? f.verificationCode : f.resetCode;
    if (byName[name]) return byName[name];
    if (name !== 'id') return undefined;
    // What a restore takes: a soft-deleted record (a live one is not found among the deleted).
    if (path === '/clients/{id}/restore') return f.deletedClient;
    if (path === '/collections/{id}/restore') return f.deletedCollection;
    if (path === '/api/v1/me/search-history/{id}') return f.searchEntry;
    const resource = path.split('/').filter((part) => part && part !== 'api' && part !== 'v1')[0];
    const byResource: Record<string, string> = {
      customers: f.customer,
      cards: f.card,
      payments: f.payment,
      channels: f.channel,
      projects: f.contentProject,
      collections: f.collection,
      clients: f.client,
      events: f.event,
      'webhook-endpoints': f.webhookEndpoint,
      platform: f.owner.projectId,
      sessions: f.session,
      me: f.passkey,
    };
    return byResource[resource];
  }

  function resolve(schema: Schema | undefined): Schema | undefined {
    if (!schema) return undefined;
    if (schema.$ref) return resolve(document.components.schemas[schema.$ref.split('/').pop()!]);
    if (schema.allOf?.length === 1) return resolve(schema.allOf[0]);
    return schema;
  }

  /** A body from its fields' examples, as Swagger UI builds one; a required field without one is a record's id, or a gap. */
  function fromExamples(schema: Schema | undefined, path: string, f: Fixture, gaps: string[], at = ''): unknown {
    const resolved = resolve(schema);
    if (!resolved) return undefined;
    if (resolved.example !== undefined) return resolved.example;
    if (!resolved.properties) return resolved.default;
    const body: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(resolved.properties)) {
      const field = resolve(property);
      const example = property.example ?? field?.example;
      if (example !== undefined) body[name] = example;
      else if (resolved.required?.includes(name)) {
        const record = recordFor(name, path, f);
        if (record) body[name] = record;
        else if (field?.properties) body[name] = fromExamples(field, path, f, gaps, `${at}${name}.`);
        else gaps.push(`${at}${name}`);
      }
    }
    return body;
  }

  function request(
    path: string,
    method: string,
    operation: Operation,
    f: Fixture,
  ): { url: string; body: unknown; headers: Record<string, string>; gaps: string[] } {
    const gaps: string[] = [];
    const headers: Record<string, string> = {};
    const query: string[] = [];
    let url = path;
    for (const parameter of operation.parameters ?? []) {
      const example = parameter.example ?? parameter.schema?.example;
      const value =
        example !== undefined
          ? String(example)
          : parameter.required || parameter.in === 'path'
            ? recordFor(parameter.name, path, f)
            : undefined;
      if (value === undefined) {
        if (parameter.required || parameter.in === 'path') gaps.push(`${parameter.in} ${parameter.name}`);
        continue;
      }
      if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(value));
      else if (parameter.in === 'query') query.push(`${parameter.name}=${encodeURIComponent(value)}`);
      else if (parameter.in === 'header') headers[parameter.name] = value;
    }
    if (query.length) url += `?${query.join('&')}`;
    const content = operation.requestBody?.content?.['application/json'];
    let body: unknown;
    if (content) {
      const named = content.examples ? Object.values(content.examples)[0]?.value : undefined;
      body = named ?? content.example ?? fromExamples(content.schema, path, f, gaps);
    } else if (['post', 'put', 'patch'].includes(method)) body = undefined;
    return { url, body, headers, gaps };
  }

  function takesOnlyPublishableKey(operation: Operation): boolean {
    return (
      (operation.security ?? []).length > 0 &&
      (operation.security ?? []).every((requirement) => 'publishableKey' in requirement)
    );
  }

  it('answers no example with 400, 403 or 404', async () => {
    const refused: string[] = [];
    let sent = 0;
    // Reads share one account; every other operation gets its own, so none finds what another changed.
    const forReads = await fixture(true);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const f = method === 'get' ? forReads : await fixture();
        const { url, body, headers, gaps } = request(path, method, operation, f);
        if (gaps.length) {
          refused.push(`${operation.operationId}: no example for ${gaps.join(', ')}`);
          continue;
        }
        // fetch itself: some answers are not one JSON document (the audit log's export is JSON lines).
        // A route only a session can use is tried with the owner's session, as the dashboard would send it.
        const sessionOnly = JSON.stringify(operation.security) === JSON.stringify([{ session: [] }]);
        const credentials: Record<string, string> = sessionOnly
          ? { cookie: f.sessionCookie, origin: t.baseUrl }
          : { authorization: `Bearer ${takesOnlyPublishableKey(operation) ? f.publishableKey : f.owner.token}` };
        const res = await fetch(`${t.baseUrl}${url}`, {
          method: method.toUpperCase(),
          headers: {
            ...credentials,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
        });
        const text = await res.text();
        sent++;
        if (REFUSED_BY_THE_EXAMPLE.includes(res.status)) {
          refused.push(
            `${operation.operationId} ${method.toUpperCase()} ${url} ${JSON.stringify(body) ?? ''}: ${res.status} ${text.slice(0, 300)}`,
          );
        }
      }
    }
    expect(refused).toEqual([]);
    expect(sent).toBeGreaterThan(70);
  }, 600_000);
});
