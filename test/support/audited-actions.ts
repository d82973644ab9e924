import type { AuditAction } from '../../src/audit/audit-entry.schema';
import { createFirstAdmin, createUser, invite, uniqueEmail, type TestUser } from './auth';
import type { HttpClient, HttpResponse } from './http';
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

const inAccountOf = (owner: TestUser, targetId: string): Performed => ({ reader: owner, accountId: owner.accountId, targetId });
const account = (owner: TestUser) => `/api/v1/accounts/${owner.accountId}`;
const keys = (owner: TestUser) => `/api/v1/platform/projects/${owner.projectId}/keys`;

async function customer({ http, owner }: Actors): Promise<string> {
  return ok(await http.post('/v1/customers', { email: uniqueEmail('audited') }, { token: owner.token }), 201).body.data.id;
}

async function platformProject({ http, owner }: Actors): Promise<string> {
  return ok(await http.post('/api/v1/platform/projects', { name: `Audited ${uniqueEmail('p')}` }, { token: owner.token }), 201).body.data.id;
}

async function apiKey({ http, owner }: Actors): Promise<string> {
  return ok(await http.post(keys(owner), { name: 'audited' }, { token: owner.token }), 201).body.data.id;
}

async function webhookEndpoint({ http, owner }: Actors): Promise<string> {
  const body = { url: 'http://127.0.0.1:9/audited', enabledEvents: ['payment.created'] };
  return ok(await http.post('/v1/webhook-endpoints', body, { token: owner.token }), 201).body.data.id;
}

async function invitation({ http, owner }: Actors): Promise<string> {
  return ok(await http.post(`${account(owner)}/invitations`, { email: uniqueEmail('invited'), role: 'developer' }, { token: owner.token }), 201).body.data.id;
}

/**
 * Every action of the audit log, performed through the API as a client would. Typed by the schema's
 * list of actions, so an action added there without a way to perform it here does not compile; the
 * audit actions unit test compares the keys with that list and with the README's.
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
    ok(await actors.http.patch(`/api/v1/platform/projects/${id}`, { name: 'Renamed for the audit' }, { token: actors.owner.token }));
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
    ok(await actors.http.post(`${keys(actors.owner)}/${id}/roll`, { expiresInHours: 1 }, { token: actors.owner.token }), 201);
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
    ok(await actors.http.patch(`/v1/webhook-endpoints/${id}`, { description: 'Audited' }, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'webhook_endpoint.deleted': async (actors) => {
    const id = await webhookEndpoint(actors);
    ok(await actors.http.delete(`/v1/webhook-endpoints/${id}`, { token: actors.owner.token }));
    return inAccountOf(actors.owner, id);
  },
  'webhook_endpoint.secret_rolled': async (actors) => {
    const id = await webhookEndpoint(actors);
    ok(await actors.http.post(`/v1/webhook-endpoints/${id}/roll-secret`, { expiresInHours: 1 }, { token: actors.owner.token }));
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
    ok(await http.post('/v1/cards', { customer: id, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' }, { token: owner.token }), 201);
    const payment = ok(await http.post('/api/v1/payments', { amount: 10, currency: 'usd', customer: id, confirm: true }, { token: owner.token }), 201).body.id;
    ok(await http.post(`/api/v1/payments/${payment}/refund`, { amount: 4 }, { token: owner.token }));
    return inAccountOf(owner, payment);
  },
  'collection.deleted': async ({ http, owner }) => {
    const id = ok(await http.post('/collections', { name: 'Audited' }, { token: owner.token }), 201).body.id;
    ok(await http.delete(`/collections/${id}`, { token: owner.token }));
    return inAccountOf(owner, id);
  },
  'client.deleted': async ({ http, owner }) => {
    const id = ok(await http.post('/clients', { name: 'Audited', email: uniqueEmail('client') }, { token: owner.token }), 201).body.id;
    ok(await http.delete(`/clients/${id}`, { token: owner.token }));
    return inAccountOf(owner, id);
  },
  'user.logged_in': async ({ http, owner }) => {
    ok(await http.post('/api/v1/login', { email: owner.email, password: owner.password }));
    return inAccountOf(owner, owner.id);
  },
  'password.reset': async ({ http }) => {
    const owner = await createFirstAdmin(http);
    ok(await http.post('/api/v1/password-resets', { email: owner.email }), 202);
    const token = await new MailServer().tokenFrom(owner.email, /reset your password/i, '/reset-password');
    ok(await http.post(`/api/v1/password-resets/${token}`, { password: 'a brand new password' }));
    return inAccountOf(owner, owner.id);
  },
};

/** An existing user, who owns an account of their own, joins `owner`'s account by accepting an invitation. */
export async function acceptInvitation(http: HttpClient, owner: TestUser, user: TestUser): Promise<void> {
  const token = await invite(http, owner.token, user.email, 'developer');
  ok(await http.post('/api/v1/invitations/accept', { token }, { token: user.token }));
}

