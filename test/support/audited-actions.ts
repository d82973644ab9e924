import type { AuditAction } from '../../src/audit/audit-entry.schema';
import { createFirstAdmin, createUser, invite, login, uniqueEmail, type TestUser } from './auth';
import { createContentProject } from './content';
import type { HttpClient, HttpResponse } from './http';
import { addPasskey, SoftwareAuthenticator } from './passkeys';
import { enableTotp, signIn, totp } from './sessions';
import { MailServer } from './mail-server';

/** The log to read and the target the entry must name. */
export interface Performed {
  /** An admin of the account whose log holds the entry. */
  reader: TestUser;
  accountId: string;
  targetId: string;
}

/** What each audited action needs: the service's HTTP client and an admin who owns an account. */
export interface Actors {
  http: HttpClient;
  owner: TestUser;
}

type Perform = (actors: Actors) => Promise<Performed>;

/** Fails with the answer when a step of the set-up or the action is refused. */
function ok(res: HttpResponse, status = 200): HttpResponse {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

const inAccountOf = (owner: TestUser, targetId: string): Performed => ({
  reader: owner,
  accountId: owner.accountId,
  targetId,
});
const account = (owner: TestUser) => `/api/v1/accounts/${owner.accountId}`;
const keys = (owner: TestUser) => `/api/v1/platform/projects/${owner.projectId}/keys`;

async function customer({ http, owner }: Actors): Promise<string> {
  return ok(await http.post('/v1/customers', { email: uniqueEmail('audited') }, { token: owner.token }), 201).body.data
    .id;
}

async function platformProject({ http, owner }: Actors): Promise<string> {
  return ok(
    await http.post('/api/v1/platform/projects', { name: `Audited ${uniqueEmail('p')}` }, { token: owner.token }),
    201,
  ).body.data.id;
}

async function apiKey({ http, owner }: Actors): Promise<string> {
  return ok(await http.post(keys(owner), { name: 'audited' }, { token: owner.token }), 201).body.data.id;
}

async function shareLink({ http, owner }: Actors): Promise<{ project: string; id: string }> {
  const project = await createContentProject(http, owner.token);
  return {
    project,
    id: ok(await http.post(`/projects/${project}/share-links`, {}, { token: owner.token }), 201).body.id,
  };
}

async function grant({ http, owner }: Actors): Promise<{ project: string; id: string }> {
  const project = await createContentProject(http, owner.token);
  const body = { email: uniqueEmail('granted'), role: 'viewer' };
  return { project, id: ok(await http.post(`/projects/${project}/grants`, body, { token: owner.token }), 201).body.id };
}

async function webhookEndpoint({ http, owner }: Actors): Promise<string> {
  const body = { url: 'http://127.0.0.1:9/audited', enabledEvents: ['payment.created'] };
  return ok(await http.post('/v1/webhook-endpoints', body, { token: owner.token }), 201).body.data.id;
}

async function invitation({ http, owner }: Actors): Promise<string> {
  return ok(
    await http.post(
      `${account(owner)}/invitations`,
      { email: uniqueEmail('invited'), role: 'developer' },
      { token: owner.token },
    ),
    201,
  ).body.data.id;
}

/** A channel of the owner's default project and a member of the account made its editor: the collaborator record's id. */
async function collaborator({ http, owner }: Actors): Promise<{ channel: string; userId: string; id: string }> {
  const as = { token: owner.token };
  const client = ok(await http.post('/clients', { name: 'Audited', email: uniqueEmail('client') }, as), 201).body.id;
  const username = uniqueEmail('channel')
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 30);
  const channel = ok(
    await http.post(
      '/channels',
      { clientId: client, name: 'Audited', username, avatarUrl: 'https://cdn.example.com/a.png', role: 'creator' },
      as,
    ),
  ).body.id;
  const member = await createUser(http, 'developer', owner.token);
  const id = ok(await http.post(`/channels/${channel}/collaborators`, { userId: member.id, role: 'editor' }, as), 201)
    .body._id;
  return { channel, userId: member.id, id };
}

/**
 * Every action of the audit log, performed through the API as a client would. Typed by the schema's
 * list of actions, so an action added there without a way to perform it here does not compile; the
 * audit actions unit test compares the keys with that list and with docs/events-and-webhooks.md's.
 */
export const AUDITED_ACTIONS: Record<AuditAction, Perform> = {
  'account.created': async ({ http }) => {
    // A signup creates the account; its first entry says so.
    const owner = await createFirstAdmin(http);
    return inAccountOf(owner, owner.accountId);
  },
  'account.updated': async ({ http, owner }) => {
    ok(await http.patch(account(owner), { name: 'Renamed for the audit' }, { token: owner.token }));
    return inAccountOf(owner, owner.accountId);
  },
  'ownership.transferred': async ({ http }) => {
    const owner = await createFirstAdmin(http);
    const heir = await createUser(http, 'admin', owner.token);
    ok(await http.post(`${account(owner)}/ownership`, { userId: heir.id }, { token: owner.token }));
    return inAccountOf(owner, heir.id);
  },
  'member.invited': async (actors) => inAccountOf(actors.owner, await invitation(actors)),
  'member.joined': async ({ http, owner }) => {
    const member = await createUser(http, 'developer', owner.token);
    return inAccountOf(owner, member.id);
  },
  'member.role_changed': async ({ http, owner }) => {
    const member = await createUser(http, 'developer', owner.token);
    ok(await http.patch(`${account(owner)}/members/${member.id}`, { role: 'manager' }, { token: owner.token }));
    return inAccountOf(owner, member.id);
  },
  'member.removed': async ({ http, owner }) => {
    const member = await createUser(http, 'developer', owner.token);
    ok(await http.delete(`${account(owner)}/members/${member.id}`, { token: owner.token }));
    return inAccountOf(owner, member.id);
  },
  'member.left': async ({ http, owner }) => {
    const member = await createUser(http, 'developer', owner.token);
    ok(await http.delete(`${account(owner)}/members/${member.id}`, { token: member.token }));
    return inAccountOf(owner, member.id);
  },
  'invitation.revoked': async (actors) => {
    const id = await invitation(actors);
    ok(await actors.http.delete(`${account(actors.owner)}/invitations/${id}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'platform_project.created': async (actors) => inAccountOf(actors.owner, await platformProject(actors)),
  'platform_project.updated': async (actors) => {
    const id = await platformProject(actors);
    ok(
      await actors.http.patch(
        `/api/v1/platform/projects/${id}`,
        { name: 'Renamed for the audit' },
        { token: actors.owner.token },
      ),
    );
    return inAccountOf(actors.owner, id);
  },
  'platform_project.deleted': async (actors) => {
    const id = await platformProject(actors);
    ok(await actors.http.delete(`/api/v1/platform/projects/${id}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'api_key.created': async (actors) => inAccountOf(actors.owner, await apiKey(actors)),
  'api_key.rolled': async (actors) => {
    const id = await apiKey(actors);
    ok(
      await actors.http.post(`${keys(actors.owner)}/${id}/roll`, { expiresInHours: 1 }, { token: actors.owner.token }),
      201,
    );
    return inAccountOf(actors.owner, id);
  },
  'api_key.revoked': async (actors) => {
    const id = await apiKey(actors);
    ok(await actors.http.delete(`${keys(actors.owner)}/${id}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'webhook_endpoint.created': async (actors) => inAccountOf(actors.owner, await webhookEndpoint(actors)),
  'webhook_endpoint.updated': async (actors) => {
    const id = await webhookEndpoint(actors);
    ok(
      await actors.http.patch(`/v1/webhook-endpoints/${id}`, { description: 'Audited' }, { token: actors.owner.token }),
    );
    return inAccountOf(actors.owner, id);
  },
  'webhook_endpoint.deleted': async (actors) => {
    const id = await webhookEndpoint(actors);
    ok(await actors.http.delete(`/v1/webhook-endpoints/${id}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'webhook_endpoint.secret_rolled': async (actors) => {
    const id = await webhookEndpoint(actors);
    ok(
      await actors.http.post(
        `/v1/webhook-endpoints/${id}/roll-secret`,
        { expiresInHours: 1 },
        { token: actors.owner.token },
      ),
    );
    return inAccountOf(actors.owner, id);
  },
  'customer.deleted': async (actors) => {
    const id = await customer(actors);
    ok(await actors.http.delete(`/v1/customers/${id}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'payment.refunded': async (actors) => {
    const { http, owner } = actors;
    const id = await customer(actors);
    ok(
      await http.post(
        '/v1/cards',
        { customer: id, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
        { token: owner.token },
      ),
      201,
    );
    const payment = ok(
      await http.post(
        '/api/v1/payments',
        { amount: 10, currency: 'usd', customer: id, confirm: true },
        { token: owner.token },
      ),
      201,
    ).body.id;
    ok(await http.post(`/api/v1/payments/${payment}/refund`, { amount: 4 }, { token: owner.token }));
    return inAccountOf(owner, payment);
  },
  'collection.deleted': async ({ http, owner }) => {
    const id = ok(await http.post('/collections', { name: 'Audited' }, { token: owner.token }), 201).body.id;
    ok(await http.delete(`/collections/${id}`, { token: owner.token }));
    return inAccountOf(owner, id);
  },
  'client.deleted': async ({ http, owner }) => {
    const id = ok(
      await http.post('/clients', { name: 'Audited', email: uniqueEmail('client') }, { token: owner.token }),
      201,
    ).body.id;
    ok(await http.delete(`/clients/${id}`, { token: owner.token }));
    return inAccountOf(owner, id);
  },
  'collaborator.added': async (actors) => inAccountOf(actors.owner, (await collaborator(actors)).id),
  'collaborator.changed': async (actors) => {
    const { channel, userId, id } = await collaborator(actors);
    ok(
      await actors.http.patch(
        `/channels/${channel}/collaborators/${userId}`,
        { role: 'manager' },
        { token: actors.owner.token },
      ),
    );
    return inAccountOf(actors.owner, id);
  },
  'collaborator.removed': async (actors) => {
    const { channel, userId, id } = await collaborator(actors);
    ok(await actors.http.delete(`/channels/${channel}/collaborators/${userId}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'share_link.created': async (actors) => inAccountOf(actors.owner, (await shareLink(actors)).id),
  'share_link.revoked': async (actors) => {
    const { project, id } = await shareLink(actors);
    ok(await actors.http.delete(`/projects/${project}/share-links/${id}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'grant.created': async (actors) => inAccountOf(actors.owner, (await grant(actors)).id),
  'grant.revoked': async (actors) => {
    const { project, id } = await grant(actors);
    ok(await actors.http.delete(`/projects/${project}/grants/${id}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'user.logged_in': async ({ http, owner }) => {
    ok(await http.post('/api/v1/login', { email: owner.email, password: owner.password }));
    return inAccountOf(owner, owner.id);
  },
  'user.login_failed': async ({ http }) => {
    const user = await createFirstAdmin(http);
    ok(await http.post('/api/v1/sessions', { email: user.email, password: 'not the password' }), 401);
    // Recorded after the answer, so a known email answers as fast as an unknown one.
    await untilLogged(http, user, 'user.login_failed');
    return inAccountOf(user, user.id);
  },
  'session.revoked': async ({ http }) => {
    const user = await createFirstAdmin(http);
    const browser = await signIn(http, user);
    const current = ok(await browser.get('/api/v1/sessions')).body.data.find(
      (session: { current: boolean }) => session.current,
    );
    ok(await browser.delete('/api/v1/sessions/current'));
    return inAccountOf(user, current.id);
  },
  'password.changed': async ({ http }) => {
    const user = await createFirstAdmin(http);
    ok(
      await http.put(
        '/api/v1/me/password',
        { currentPassword: user.password, password: 'a brand new password' },
        { token: user.token },
      ),
    );
    // The change refuses the tokens issued before it, to the millisecond: the log is read with a new one.
    const relogged = await login(http, user.email, 'a brand new password');
    return inAccountOf({ ...user, token: relogged.body.accessToken }, user.id);
  },
  'mfa.enabled': async ({ http }) => {
    const user = await createFirstAdmin(http);
    await enableTotp(await signIn(http, user));
    return inAccountOf(user, user.id);
  },
  'mfa.disabled': async ({ http }) => {
    const user = await createFirstAdmin(http);
    const browser = await signIn(http, user);
    const { secret } = await enableTotp(browser);
    ok(await browser.delete('/api/v1/me/mfa/totp', { code: await totp(secret, 0) }));
    // Removing a factor ends the tokens issued before it: the log is read with a new one.
    const relogged = await login(http, user.email, user.password);
    return inAccountOf({ ...user, token: relogged.body.accessToken }, user.id);
  },
  'passkey.added': async ({ http }) => {
    const user = await createFirstAdmin(http);
    const passkey = await addPasskey(await signIn(http, user), new SoftwareAuthenticator());
    return inAccountOf(user, passkey.id);
  },
  'passkey.removed': async ({ http }) => {
    const user = await createFirstAdmin(http);
    const browser = await signIn(http, user);
    const passkey = await addPasskey(browser, new SoftwareAuthenticator());
    ok(await browser.delete(`/api/v1/me/passkeys/${passkey.id}`));
    // Removing a factor ends the tokens issued before it: the log is read with a new one.
    const relogged = await login(http, user.email, user.password);
    return inAccountOf({ ...user, token: relogged.body.accessToken }, passkey.id);
  },
  'account.mfa_required': async ({ http }) => {
    const user = await createFirstAdmin(http);
    const { recoveryCodes } = await enableTotp(await signIn(http, user));
    ok(await http.patch(account(user), { requireMfa: true }, { token: user.token }));
    // The account now refuses a token from the password alone: the log is read with one from a code.
    const strong = ok(
      await http.post('/api/v1/login', { email: user.email, password: user.password, recoveryCode: recoveryCodes[0] }),
    );
    return inAccountOf({ ...user, token: strong.body.accessToken }, user.accountId);
  },
  'password.reset': async ({ http }) => {
    const owner = await createFirstAdmin(http);
    ok(await http.post('/api/v1/password-resets', { email: owner.email }), 202);
    const token = await new MailServer().tokenFrom(owner.email, /reset your password/i, '/reset-password');
    ok(await http.post(`/api/v1/password-resets/${token}`, { password: 'a brand new password' }));
    // The reset refuses the tokens issued before it: the log is read with a new one.
    const relogged = await login(http, owner.email, 'a brand new password');
    return inAccountOf({ ...owner, token: relogged.body.accessToken }, owner.id);
  },
  'search_history.paused': async ({ http }) => {
    const owner = await createFirstAdmin(http);
    ok(await http.put('/api/v1/me/search-history/settings', { paused: true }, { token: owner.token }));
    return inAccountOf(owner, owner.id);
  },
  'search_history.resumed': async ({ http }) => {
    const owner = await createFirstAdmin(http);
    ok(await http.put('/api/v1/me/search-history/settings', { paused: true }, { token: owner.token }));
    ok(await http.put('/api/v1/me/search-history/settings', { paused: false }, { token: owner.token }));
    return inAccountOf(owner, owner.id);
  },
};

/** Waits (up to 5 s) for an entry recorded after the answer. */
async function untilLogged(http: HttpClient, user: TestUser, action: AuditAction): Promise<void> {
  for (let tries = 0; tries < 50; tries++) {
    const res = ok(
      await http.get(`/api/v1/accounts/${user.accountId}/audit-log?action=${action}&limit=1`, { token: user.token }),
    );
    if (res.body.data.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${action} entry within 5 s`);
}

/** An existing user, who owns an account of their own, joins `owner`'s account by accepting an invitation. */
export async function acceptInvitation(http: HttpClient, owner: TestUser, user: TestUser): Promise<void> {
  const token = await invite(http, owner.token, user.email, 'developer');
  ok(await http.post('/api/v1/invitations/accept', { token }, { token: user.token }));
}
