import type { Connection } from 'mongoose';

/** Connections found at start to be served by FerretDB. */
const servedByFerretdb = new WeakSet<Connection>();

/**
 * FerretDB 1.24 narrows an `_id` equality in SQL but answers `_id: { $in: [...] }` by reading the
 * whole collection: 2 ids among 20,000 events took about 1 s, one lookup per id 3 to 11 ms. On a
 * connection found to be FerretDB (buildInfo's `ferretdbVersion`), `Records.findByIds` looks ids up
 * one by one; on MongoDB, where an `$in` is one index lookup, it sends the one `$in`.
 */
export async function noteFerretdb(connection: Connection): Promise<void> {
  const info = (await connection.db?.admin().command({ buildInfo: 1 })) as { ferretdbVersion?: string } | undefined;
  if (info?.ferretdbVersion !== undefined) servedByFerretdb.add(connection);
}

/** Whether lookups by several ids on this connection go one id at a time (see `noteFerretdb`). */
export function looksUpIdsOneByOne(connection: Connection): boolean {
  return servedByFerretdb.has(connection);
}
