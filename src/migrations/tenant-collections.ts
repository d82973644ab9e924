/**
 * The collections whose records belong to one platform project (`projectId`). The single-tenant
 * build wrote them without one. `payment_locks` is left out on purpose: its short leases are keyed
 * by payment id and expire by themselves.
 */
export const TENANT_COLLECTIONS = [
  'customers',
  'cards',
  'payments',
  'idempotency_keys',
  'channels',
  'projects',
  'collections',
  'clients',
] as const;
export type TenantCollection = (typeof TENANT_COLLECTIONS)[number];

/**
 * Indexes the single-tenant build declared, by key. The current schemas lead every index with
 * `projectId`; these stay behind in an upgraded database, and two of them are unique across the
 * whole service: a channel username or an Idempotency-Key used in one project would be refused in
 * every other. The migration drops them.
 */
export const LEGACY_INDEXES: Readonly<Record<TenantCollection, readonly Record<string, 1 | -1>[]>> = {
  customers: [],
  cards: [{ customer: 1, _id: -1 }],
  payments: [
    { customer: 1, _id: -1 },
    { status: 1, _id: -1 },
    { customer: 1, status: 1, _id: -1 },
  ],
  idempotency_keys: [{ scope: 1, key: 1 }],
  channels: [{ usernameKey: 1 }, { clientId: 1, _id: 1 }],
  projects: [
    { channelId: 1, _id: 1 },
    { channelId: 1, status: 1 },
    { channelId: 1, projectTypeId: 1 },
    { channelId: 1, access: 1 },
  ],
  collections: [{ deletedAt: 1, _id: -1 }],
  clients: [{ deletedAt: 1, _id: -1 }],
};

/** A filter for the records a single-tenant build wrote: they have no project. */
export const WITHOUT_PROJECT = { projectId: { $exists: false } } as const;
