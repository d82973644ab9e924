/**
 * The field every tenant-owned document carries: its platform project. Declared here, below both
 * the database module (whose size watch counts records per tenant) and tenancy (which scopes every
 * query by it).
 */
export const TENANT_FIELD = 'projectId';
