// Copies the data FerretDB's SQLite backend keeps under DATA_DIR/ferretdb into the PostgreSQL backend
// (DATA_DIR/postgres): every database, collection, index and document, then checks the counts.
// Documents the target already holds (by _id) are skipped, so running it again copies nothing twice. The SQLite files are left
// in place; once PostgreSQL's folder exists the service starts on PostgreSQL.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);
const { startEmbeddedDatabase } = require('../dist/database/embedded-database.js');
const { MongoClient } = require('mongodb');

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const log = (message) => console.error(message);
const source = await startEmbeddedDatabase({ dataDir, backend: 'sqlite', ferretdbBin: process.env.FERRETDB_BIN, log });
const target = await startEmbeddedDatabase({
  dataDir,
  backend: 'postgresql',
  ferretdbBin: process.env.FERRETDB_BIN,
  log,
});
const from = await MongoClient.connect(source.uri);
const to = await MongoClient.connect(target.uri);
let failed = false;
try {
  const { databases } = await from.db('admin').admin().listDatabases();
  for (const { name: dbName } of databases) {
    if (['admin', 'local', 'config'].includes(dbName)) continue;
    for (const { name, type } of await from.db(dbName).listCollections().toArray()) {
      if (type && type !== 'collection') continue;
      const src = from.db(dbName).collection(name);
      const dst = to.db(dbName).collection(name);
      for (const index of await src.indexes()) {
        if (index.name === '_id_') continue;
        const { key, v: _v, ns: _ns, ...options } = index;
        await dst.createIndex(key, options);
      }
      // Only what the target lacks is inserted: a rerun copies nothing twice.
      let batch = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const present = new Set(
          (
            await dst
              .find({ _id: { $in: batch.map((document) => document._id) } }, { projection: { _id: 1 } })
              .toArray()
          ).map((document) => String(document._id)),
        );
        const missing = batch.filter((document) => !present.has(String(document._id)));
        if (missing.length) await dst.insertMany(missing, { ordered: false });
        batch = [];
      };
      for await (const document of src.find({})) {
        batch.push(document);
        if (batch.length === 500) await flush();
      }
      await flush();
      const [a, b] = await Promise.all([src.countDocuments(), dst.countDocuments()]);
      log(`${dbName}.${name}: ${a} documents in SQLite, ${b} in PostgreSQL`);
      if (a !== b) failed = true;
    }
  }
} finally {
  await from.close();
  await to.close();
  await target.stop();
  await source.stop();
}
if (failed) {
  log('Counts differ: see above.');
  process.exit(1);
}
log(`Moved. The service now starts on PostgreSQL (the SQLite files under ${dataDir}/ferretdb are kept).`);
// The driver keeps timers of its own after close: the work is done.
process.exit(0);
