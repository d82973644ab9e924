'use strict';
/**
 * Bounds (measured, never asserted): GET /collections?limit=500 over the 50 seeded collections,
 * then again after BENCH_BOUNDS_SEED more are bulk-inserted into the same project, on both sides.
 */
const { ObjectId } = require('mongodb');
const { settings, log } = require('./settings');
const { send, round, sequentialLatency } = require('./runner');
const { COLLECTION_BODY } = require('./seed');

function bulkCollections(count, projectId) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(now - (count - i) * 1000);
    return {
      name: `Bench bulk ${i}`,
      description: 'Bulk-inserted by the benchmark to measure list bounds',
      numberOfClients: i % 50,
      numberOfUsers: i % 1000,
      usage: 'benchmark',
      pricing: (i % 100) + 0.99,
      endpoints: [i % 7, i % 11, i % 13],
      deletedAt: null,
      projectId,
      createdAt: at,
      updatedAt: at,
    };
  });
}

async function insertInBatches(collection, documents, size = 1000) {
  for (let i = 0; i < documents.length; i += size) {
    await collection.insertMany(documents.slice(i, i + size), { ordered: false });
  }
}

/** The rows of the bounds table: the small and the large case. */
async function measureBounds(servers, dbs, seeds) {
  // Few connections: over a large collection one request can take seconds on FerretDB.
  const request = (state) => ({
    method: 'GET',
    path: '/collections?limit=500',
    token: state.token,
    expect: 200,
    mayBeSlow: true,
  });
  const small = { label: 'GET /collections?limit=500, 50 documents' };
  const large = { label: `GET /collections?limit=500, ${50 + settings.boundsSeed} documents` };
  for (const server of servers) {
    const collections = dbs[server.name].collection('collections');
    // Documents left by the POST /collections scenario go, so the small case has its 50 seeded ones.
    await collections.deleteMany({ name: COLLECTION_BODY.name });
    const probe = await send(server, request(seeds[server.name]));
    small[`${server.name}Probe`] = probe;
    log(`  bounds, ${await collections.countDocuments({})} documents, on ${server.name}...`);
    small[server.name] = await round(
      server,
      request(seeds[server.name]),
      settings.seconds * 2,
      settings.boundsConnections,
    );
    small[`${server.name}Alone`] = await sequentialLatency(server, request(seeds[server.name]));
  }
  log(`  bulk-inserting ${settings.boundsSeed} collections into each database...`);
  for (const server of servers) {
    await insertInBatches(
      dbs[server.name].collection('collections'),
      bulkCollections(settings.boundsSeed, new ObjectId(seeds[server.name].projectId)),
    );
  }
  for (const server of servers) {
    log(
      `  bounds, ${await dbs[server.name].collection('collections').countDocuments({})} documents, on ${server.name}...`,
    );
    large[`${server.name}Alone`] = await sequentialLatency(server, request(seeds[server.name]));
    large[`${server.name}Probe`] = await send(server, request(seeds[server.name]));
    large[server.name] = await round(
      server,
      request(seeds[server.name]),
      settings.seconds * 2,
      settings.boundsConnections,
    );
  }
  for (const row of [small, large]) {
    row.returned = Array.isArray(row.serviceProbe?.json) ? row.serviceProbe.json.length : '-';
    row.total = row.serviceProbe?.headers.get('x-total-count') ?? '-';
    row.bodyKiB = row.serviceProbe ? Buffer.byteLength(row.serviceProbe.text) / 1024 : undefined;
  }
  return [small, large];
}

module.exports = { bulkCollections, insertInBatches, measureBounds };
