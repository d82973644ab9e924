'use strict';
/**
 * Preloaded into a server the bench counts database commands of (`node --require`), so that neither
 * the service's code nor the baseline's knows about it: every copy of the `mongodb` driver this
 * process can load (the top-level one the baseline uses, and Mongoose's own) gets command
 * monitoring (`monitorCommands: true`, the driver's public `commandStarted` event) on every client it
 * connects. Each HTTP request (other than GET /health) runs in an async context of its own, from
 * Node's `http.server.request.start` diagnostics channel (its body's events included, so a POST's
 * handler keeps it), closed when the response is ended. A command started in an open request's
 * context is counted "in the request"; one started in a closed request's context (work the request
 * left running after its answer) or in none (timers, sweeps, other instances' leases) "outside".
 * Sent one request at a time, the first count is exactly what a request sends and waits for.
 *
 * Monitoring builds an event, and a decoded copy of each reply, for every command: a counting server
 * is never one whose CPU or throughput is measured (bench/run.js starts a separate instance for it).
 *
 * The counts are served as JSON on the Unix socket BENCH_COMMAND_SOCKET names: one connection, one
 * answer, `{ requests, inRequest: { '<command> <collection>': n }, outside: {...}, perRequest: [n, ...] }`,
 * counts since start.
 */
const { AsyncLocalStorage } = require('node:async_hooks');
const diagnostics = require('node:diagnostics_channel');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const socketPath = process.env.BENCH_COMMAND_SOCKET;

// `perRequest`: each answered request's count, in the order their answers were sent.
const counts = { requests: 0, inRequest: {}, outside: {}, perRequest: [] };
const context = new AsyncLocalStorage();

diagnostics.subscribe('http.server.request.start', ({ request, response }) => {
  if (request.url === '/health') return;
  const store = { open: true, commands: 0 };
  counts.requests += 1;
  context.enterWith(store);
  // The body's 'data' and 'end' arrive from the socket, outside this context: a framework that
  // handles the request once its body is read would otherwise run without it.
  const emit = request.emit;
  request.emit = function emitInContext(...args) {
    return context.run(store, () => emit.apply(this, args));
  };
  // Closed when the answer is handed over: what starts after that, the client does not wait for.
  const end = response.end;
  response.end = function endInContext(...args) {
    if (store.open) counts.perRequest.push(store.commands);
    store.open = false;
    return end.apply(this, args);
  };
});

/** `find customers`, `insert events`...: the command and, for one on a collection, the collection. */
function onCommand(event) {
  const store = context.getStore();
  if (store?.open) store.commands += 1;
  const into = store?.open ? counts.inRequest : counts.outside;
  const target = event.command?.[event.commandName];
  const key = typeof target === 'string' ? `${event.commandName} ${target}` : event.commandName;
  into[key] = (into[key] ?? 0) + 1;
}

const PATCHED = Symbol('bench.patched');
const MONITORED = Symbol('bench.monitored');
function monitor(driverEntry) {
  const { MongoClient } = require(driverEntry);
  if (Object.hasOwn(MongoClient.prototype, PATCHED)) return;
  const connect = MongoClient.prototype.connect;
  Object.defineProperty(MongoClient.prototype, PATCHED, { value: true });
  MongoClient.prototype.connect = function connectMonitored(...args) {
    if (!Object.hasOwn(this, MONITORED)) {
      Object.defineProperty(this, MONITORED, { value: true });
      // Read by each connection when the pool makes it, so it must be set before the first one.
      this.monitorCommands = true;
      this.on('commandStarted', onCommand);
    }
    return connect.apply(this, args);
  };
}

const drivers = new Set();
for (const from of [ROOT, path.dirname(require.resolve('mongoose/package.json', { paths: [ROOT] }))]) {
  try {
    drivers.add(require.resolve('mongodb', { paths: [from] }));
  } catch {
    // no copy there
  }
}
for (const entry of drivers) monitor(entry);

if (socketPath) {
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => socket.end(JSON.stringify(counts)));
  server.listen(socketPath);
  server.unref();
}
