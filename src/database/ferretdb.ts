import type { Connection } from 'mongoose';

/** Each connection's one question, by connection. */
const detections = new WeakMap<Connection, Promise<boolean>>();
/** Connections whose server answered as FerretDB. */
const servedByFerretdb = new WeakSet<Connection>();

/**
 * Whether the server is FerretDB (buildInfo's `ferretdbVersion`), asked once per connection, at
 * start: whatever the service does only on FerretDB (lookups by several ids one by one, the size
 * watch) goes by this one answer. A server that cannot say is taken for MongoDB.
 */
export function detectFerretdb(connection: Connection): Promise<boolean> {
  let detection = detections.get(connection);
  if (!detection) {
    detection = (async () => {
      const info = (await connection.db?.admin().command({ buildInfo: 1 }))?.ferretdbVersion as unknown;
      if (typeof info === 'string') servedByFerretdb.add(connection);
      return typeof info === 'string';
    })().catch(() => false);
    detections.set(connection, detection);
  }
  return detection;
}

/**
 * FerretDB 1.24 narrows an `_id` equality in SQL but answers `_id: { $in: [...] }` by reading the
 * whole collection: 2 ids among 20,000 events took about 1 s, one lookup per id 3 to 11 ms. On a
 * connection `detectFerretdb` found served by FerretDB, `Records.findByIds` looks ids up one by one;
 * on MongoDB, where an `$in` is one index lookup, it sends the one `$in`.
 */
export function looksUpIdsOneByOne(connection: Connection): boolean {
  return servedByFerretdb.has(connection);
}
