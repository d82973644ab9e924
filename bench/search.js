'use strict';
/**
 * Search (measured, never asserted): GET /projects/search?q=<word> over BENCH_SEARCH_SEED content
 * projects bulk-inserted into the seeded project, on both sides. The service answers from its index
 * (SQLite FTS5, fed by the events list), the baseline with a case-insensitive regular expression
 * over the title, the description and the tags, newest first, and a count: what a service without
 * an index does. Runs after the bounds, so no other scenario meets the larger projects collection.
 *
 * The projects are written straight into each database, each with the `project.created` event the
 * service would have listed (the same documents on both sides; the baseline never reads them): the
 * service's index follows the events list, and the section waits until it has every project.
 */
const { ObjectId } = require('mongodb');
const { settings, log, sleep } = require('./settings');
const { send, round, sequentialLatency } = require('./runner');
const { insertInBatches } = require('./bounds');
const { storedContentProject } = require('../test/fixtures/stored-content-project');

/** Words no two of which are one typo apart, nor one the start of another: a query for one finds exactly the projects holding it. */
const WORDS = [
  'amber',
  'birch',
  'cedar',
  'delta',
  'ember',
  'fjord',
  'glade',
  'heron',
  'inlet',
  'juniper',
  'kestrel',
  'lagoon',
  'meadow',
  'nettle',
  'orchid',
  'prairie',
  'quartz',
  'raven',
  'sorrel',
  'thistle',
];
/** The word searched: in one project in five. */
const QUERY = 'heron';

function searchProjects(count, projectId, channelId) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(now - (count - i) * 1000);
    return storedContentProject({
      _id: new ObjectId(),
      projectId,
      channelId,
      parentId: null,
      projectTypeId: 'show',
      primaryTitle: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} episode ${i}`,
      description: `Field notes on the ${WORDS[(i * 11 + 5) % WORDS.length]} and the ${WORDS[(i * 13 + 1) % WORDS.length]}, recorded for the benchmark`,
      topicIds: [WORDS[(i * 17 + 2) % WORDS.length]],
      createdAt: at,
      updatedAt: at,
    });
  });
}

/** The event the service lists for a new project: its `data.object` is what `GET /projects/{id}` answers. */
function createdEvent(project) {
  const id = `evt_${new ObjectId().toHexString()}`;
  const object = {
    ...project,
    _id: String(project._id),
    channelId: String(project.channelId),
    parentId: null,
    projectId: undefined,
    createdAt: project.createdAt.toISOString(),
    updatedAt: project.updatedAt.toISOString(),
  };
  const createdAt = new Date();
  const body = JSON.stringify({
    id,
    type: 'project.created',
    createdAt: createdAt.toISOString(),
    projectId: String(project.projectId),
    data: { object },
    request: { id: null, idempotencyKey: null },
  });
  return { _id: id, projectId: project.projectId, type: 'project.created', createdAt, body };
}

const holds = (project) =>
  [project.primaryTitle, project.description, ...project.topicIds].some((text) => text.split(/\W+/).includes(QUERY));

/** The row of the search run, shaped as the bounds rows (the report prints it in their table). */
async function measureSearch(servers, dbs, seeds) {
  const request = (state) => ({
    method: 'GET',
    path: `/projects/search?q=${QUERY}`,
    token: state.token,
    expect: 200,
    mayBeSlow: true,
  });
  const row = { label: `GET /projects/search?q=${QUERY}, ${settings.searchSeed} projects` };
  let expected;
  log(`  search: bulk-inserting ${settings.searchSeed} projects and their events into each database...`);
  for (const server of servers) {
    const seed = seeds[server.name];
    const projects = searchProjects(settings.searchSeed, new ObjectId(seed.projectId), new ObjectId(seed.channelId));
    expected = projects.filter(holds).length;
    await insertInBatches(dbs[server.name].collection('projects'), projects);
    await insertInBatches(dbs[server.name].collection('events'), projects.map(createdEvent));
  }
  const service = servers.find((server) => server.isService);
  if (service) {
    const deadline = Date.now() + 300_000;
    let found;
    while (Date.now() < deadline) {
      found = (await send(service, request(seeds[service.name]))).json?.total_count;
      if (found === expected) break;
      await sleep(500);
    }
    if (found !== expected)
      throw new Error(
        `the service's search index never held the ${expected} projects with "${QUERY}" (it found ${found})`,
      );
    log(`  search: the service's index holds the seeded projects (${expected} with "${QUERY}")`);
  }
  for (const server of servers) {
    log(`  search, ${settings.searchSeed} projects, on ${server.name}...`);
    row[`${server.name}Alone`] = await sequentialLatency(server, request(seeds[server.name]));
    row[`${server.name}Probe`] = await send(server, request(seeds[server.name]));
    row[server.name] = await round(
      server,
      request(seeds[server.name]),
      settings.seconds * 2,
      settings.boundsConnections,
    );
  }
  const probe = row.serviceProbe?.json;
  row.returned = Array.isArray(probe?.data) ? probe.data.length : '-';
  row.total = probe?.total_count ?? '-';
  row.bodyKiB = row.serviceProbe ? Buffer.byteLength(row.serviceProbe.text) / 1024 : undefined;
  return [row];
}

module.exports = { measureSearch, searchProjects, QUERY };
