'use strict';
/**
 * What one write of each kind costs the database server, on the embedded database the bench uses:
 * the CPU of the server's processes (FerretDB and PostgreSQL, or mongod) per operation, from /proc,
 * over `BENCH_WRITES` (1,500) operations of each kind sent 8 at a time, in a collection with the
 * webhook deliveries' indexes (and the GIN indexes the service adds on FerretDB). The kinds are the
 * writes a delivery costs on each side of the webhook cost (bench/README.md): the service's delivery
 * insert and its outcome update, the baseline's smaller insert. Measured, never asserted.
 *
 *   npm run build && node bench/write-costs.js
 */
const { ObjectId } = require('mongodb');
const { startDatabase, addBaselineGinIndexes, cleanup } = require('./processes');
const { watchTreeCpu } = require('./monitor');
const { log } = require('./settings');

const COUNT = Number(process.env.BENCH_WRITES || 1500);
const IN_FLIGHT = 8;
const TICK_MICROS = 10_000;

async function main() {
  const { database, mongo, pids } = await startDatabase();
  const db = mongo.db('bench_write_costs');
  const deliveries = db.collection('webhook_deliveries');
  await deliveries.createIndex({ endpointId: 1, eventId: 1 }, { unique: true });
  await deliveries.createIndex({ projectId: 1, endpointId: 1, _id: -1 });
  await deliveries.createIndex({ status: 1 });
  await deliveries.createIndex({ nextAttemptAt: 1 });
  await addBaselineGinIndexes(database, db);

  const projectId = new ObjectId();
  const endpointId = new ObjectId();
  // An event's JSON as the service's payments send it, about 600 bytes.
  const payload = JSON.stringify({
    id: `evt_${new ObjectId().toHexString()}`,
    type: 'payment.created',
    data: { object: { note: 'x'.repeat(480) } },
  });
  const ids = Array.from({ length: COUNT }, () => new ObjectId());
  const small = Array.from({ length: COUNT }, () => new ObjectId());

  async function measure(kind, write) {
    const cpu = watchTreeCpu(pids);
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < COUNT) await write(next++);
      }),
    );
    log(`  ${kind}: ${Math.round((cpu() * TICK_MICROS) / COUNT)} µs of database CPU each`);
  }

  log(
    `Database CPU per operation, ${COUNT} of each, ${IN_FLIGHT} at a time (${database.engine}${database.backend ? ` on ${database.backend}` : ''}):`,
  );
  const now = () => new Date();
  await measure("the service's delivery insert (claimed, with the payload)", (i) =>
    deliveries.insertOne({
      _id: ids[i],
      projectId,
      endpointId,
      eventId: `evt_${ids[i].toHexString()}`,
      eventType: 'payment.created',
      payload,
      status: 'pending',
      attempt: 1,
      nextAttemptAt: now(),
      claimToken: `token${i}`,
      claimedUntil: now(),
      claimedAt: now(),
      attempts: [],
      responseStatus: null,
      responseBody: null,
      durationMs: null,
      error: null,
      createdAt: now(),
      updatedAt: now(),
    }),
  );
  await measure('its outcome (an update guarded on the claim, $set and $push)', (i) =>
    deliveries.updateOne(
      { _id: ids[i], projectId, attempt: 1, claimToken: `token${i}` },
      {
        $set: {
          status: 'succeeded',
          nextAttemptAt: null,
          claimToken: null,
          claimedUntil: null,
          claimedAt: null,
          responseStatus: 204,
          durationMs: 3,
          updatedAt: now(),
        },
        $push: {
          attempts: {
            attempt: 1,
            status: 'succeeded',
            responseStatus: 204,
            responseBody: '',
            durationMs: 3,
            error: null,
            createdAt: now(),
          },
        },
      },
    ),
  );
  await measure('an update by _id alone, one field', (i) =>
    deliveries.updateOne({ _id: ids[i] }, { $set: { status: 'failed' } }),
  );
  await measure("the baseline's delivery record (an insert, no payload)", (i) =>
    deliveries.insertOne({
      _id: small[i],
      projectId,
      endpointId,
      eventId: `evt_${small[i].toHexString()}`,
      eventType: 'payment.created',
      status: 'succeeded',
      attempts: 1,
      responseStatus: 204,
      error: null,
      durationMs: 3,
      createdAt: now(),
      updatedAt: now(),
    }),
  );
  await measure('a read by _id', (i) => deliveries.findOne({ _id: small[i], projectId }));
  await db.dropDatabase();
}

main()
  .catch((error) => {
    process.exitCode = 1;
    process.stderr.write(`${error.stack ?? error}\n`);
  })
  .finally(() => cleanup());
