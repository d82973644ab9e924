// Seeds the contract run's default platform project with records of every data API, through the
// API as any client would: `node scripts/contract-seed.mjs <base URL> <access token>` prints, as
// JSON, the platform project they are in and the content projects made.
//
// Schemathesis' stateful phase reaches records from the lists `GET /api/v1/me` links to, and a list
// of a new project is empty. Its own creates rarely make a record: a card must be a designated test
// number, a payment must name two existing customers, a channel a live client. Seeded records give
// every operation on a record a real one to act on; the phase still makes, changes and deletes its own.
const [base, token] = process.argv.slice(2);
if (!base || !token) throw new Error('usage: contract-seed.mjs <base URL> <access token>');

// Every API a platform project can enable (src/tenancy/api-names.ts).
const API_NAMES = [
  'customers',
  'cards',
  'payments',
  'channels',
  'projects',
  'collections',
  'clients',
  'events',
  'webhooks',
];

async function call(method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

// The phases before may have disabled APIs of the default project (PATCH of a platform project is
// fuzzed too): every one is enabled again, as an admin would, or its routes answer 403.
const { data: me } = await call('GET', '/api/v1/me');
await call('PATCH', `/api/v1/platform/projects/${me.account.defaultProjectId}`, { enabledApis: API_NAMES });

// Several of each, oldest first: a list shows the newest first, and a record the phase deletes or
// changes leaves the next one for the following steps.
const COPIES = 4;
let counter = 0;
const unique = (prefix) => `${prefix}-${Date.now().toString(36)}-${(counter += 1)}`;

const customers = [];
for (let index = 0; index < COPIES; index += 1) {
  const { data } = await call('POST', '/v1/customers', { email: `${unique('customer')}@example.com` });
  customers.push(data.id);
  await call('POST', '/v1/cards', {
    customer: data.id,
    cardNumber: '4242424242424242',
    expMonth: '12',
    expYear: '2035',
    cvc: '123',
  });
  await call('POST', '/v1/cards', {
    customer: data.id,
    cardNumber: '5555555555554444',
    expMonth: '06',
    expYear: '2034',
    cvc: '321',
  });
}

// Succeeded payments (to refund) first, then payments that wait for confirmation: the newest, which
// a list shows first, can be confirmed, and once confirmed refunded.
for (let index = 0; index < COPIES; index += 1) {
  const [customer, reciver] = [customers[index], customers[(index + 1) % COPIES]];
  await call('POST', '/api/v1/payments', {
    amount: 120,
    currency: 'usd',
    customer,
    reciver,
    confirm: true,
    description: 'Seeded, succeeded',
  });
}
for (let index = 0; index < COPIES; index += 1) {
  const [customer, reciver] = [customers[index], customers[(index + 1) % COPIES]];
  await call('POST', '/api/v1/payments', {
    amount: 45.5,
    currency: 'eur',
    customer,
    reciver,
    description: 'Seeded, to confirm',
  });
}

const contentProjects = [];
const channels = [];
for (let index = 0; index < COPIES; index += 1) {
  const client = await call('POST', '/clients', {
    name: `Seeded Client ${index + 1}`,
    email: `${unique('client')}@example.com`,
  });
  const channel = await call('POST', '/channels', {
    clientId: client.id,
    name: `Seeded Channel ${index + 1}`,
    username: unique('seeded'),
    avatarUrl: 'https://cdn.example.com/seeded.png',
    role: 'creator',
  });
  const projectIds = [];
  for (let project = 0; project < 2; project += 1) {
    const created = await call('POST', `/channels/${channel.id}/projects`, {
      primaryTitle: `Seeded Project ${project + 1}`,
      projectTypeId: 'album',
    });
    projectIds.push(created._id);
  }
  // The client and the channel name their content projects, as the links from their lists follow.
  await call('PUT', `/clients/${client.id}`, { projectIds });
  await call('PUT', `/channels/${channel.id}`, { projectIds });
  contentProjects.push(...projectIds);
  // A small tree under the first project: a sub-project and a sub-sub-project, for the children and tree routes.
  const sub = await call('POST', `/channels/${channel.id}/projects`, {
    primaryTitle: 'Seeded Sub-project',
    projectTypeId: 'album',
    parentId: projectIds[0],
  });
  const subSub = await call('POST', `/channels/${channel.id}/projects`, {
    primaryTitle: 'Seeded Sub-sub-project',
    projectTypeId: 'album',
    parentId: sub._id,
  });
  contentProjects.push(sub._id, subSub._id);
  channels.push(channel.id);
}
// A soft-deleted client, the one kind of record a restore acts on.
const deleted = await call('POST', '/clients', {
  name: 'Seeded Deleted Client',
  email: `${unique('deleted')}@example.com`,
});
await call('PATCH', `/clients/${deleted.id}/soft-delete`);

// A webhook endpoint with a delivery, for the operations on a delivery. Its URL answers every event
// with 405 (a failed attempt, retried on schedule); it takes one rare event type, so the run's own
// changes do not queue deliveries behind the phases. A project holds at most 16 endpoints, and the
// phases before the second seeding may have made them all.
const { data: endpoints } = await call('GET', '/v1/webhook-endpoints?limit=100');
if (endpoints.length >= 16) await call('DELETE', `/v1/webhook-endpoints/${endpoints.at(-1).id}`);
const endpoint = await call('POST', '/v1/webhook-endpoints', {
  url: `${base}/health`,
  enabledEvents: ['collection.restored'],
  description: 'Seeded',
});
await call('POST', `/v1/webhook-endpoints/${endpoint.data.id}/test`);

// Members besides the caller, and pending invitations, for the operations on them.
const invitations = `/api/v1/accounts/${me.account.id}/invitations`;
for (let index = 0; index < 2; index += 1) {
  const email = `${unique('member')}@example.com`;
  const { data: invitation } = await call('POST', invitations, { email, role: 'developer' });
  await call('POST', '/api/v1/singup', {
    firstName: 'Seeded',
    lastName: 'Member',
    email,
    password: 'seeded member password',
    invitationToken: invitation.token,
  });
  await call('POST', invitations, { email: `${unique('invited')}@example.com`, role: 'manager' });
}
// A member of the account as an editor of each seeded channel (the caller, their creator, is its owner).
const { data: members } = await call('GET', `/api/v1/accounts/${me.account.id}/members`);
const member = members.find((candidate) => candidate.userId !== me.user.id);
if (member) {
  for (const channel of channels)
    await call('POST', `/channels/${channel}/collaborators`, { userId: member.userId, role: 'editor' });
}
console.error(
  `contract-seed: ${COPIES} customers with 2 cards each, ${2 * COPIES} payments, ${COPIES} clients with a channel and 2 content projects each (named by both), a sub-project and a sub-sub-project under each channel's first, a member as each channel's editor, a soft-deleted client, a webhook endpoint with a delivery, 2 members and 2 pending invitations, in platform project ${me.account.defaultProjectId}`,
);
// What the caller reads: the platform project every seeded record is in, and the content projects.
console.log(JSON.stringify({ project: me.account.defaultProjectId, contentProjects }));
