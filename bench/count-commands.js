'use strict';
/**
 * Preloaded into a server the bench counts database commands of (`node --require`), so that neither
 * the service's code nor the baseline's knows about it: every copy of the `mongodb` driver this
 * process can load (the top-level one the baseline uses, and Mongoose's own) gets command
 * monitoring (`monitorCommands: true`, the driver's public `commandStarted` event) on every client it
 * connects. A command is counted "in a request" when it starts while an HTTP request (other than
 * GET /health) is in flight, from Node's `http.server.request.start` and `http.server.response.finish`
 * diagnostics channels; any other command (work after the answer, timers, sweeps) is counted apart.
 * Sent one request at a time, the first count is exactly what a request sends and waits for.
 *
 * Monitoring builds an event, and a decoded copy of each reply, for every command: a counting server
 * is never one whose CPU or throughput is measured (bench/run.js starts a separate instance for it).
 *
 * The counts are served as JSON on the Unix socket BENCH_COMMAND_SOCKET names: one connection, one
 * answer, `{ requests, inRequest: { <command>: n }, outside: { <command>: n } }`, counts since start.
 */
const diagnostics = require('node:diagnostics_channel');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const socketPath = process.env.BENCH_COMMAND_SOCKET;

const counts = { requests: 0, inRequest: {}, outside: {} };
let inFlight = 0;
const counted = new WeakSet();

diagnostics.subscribe('http.server.request.start', ({ request }) => {
  if (request.url === '/health') return;
  counted.add(request);
  counts.requests += 1;
  inFlight += 1;
});
diagnostics.subscribe('http.server.response.finish', ({ request }) => {
  if (counted.delete(request)) inFlight -= 1;
});

function onCommand(event) {
  const into = inFlight > 0 ? counts.inRequest : counts.outside;
  into[event.commandName] = (into[event.commandName] ?? 0) + 1;
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
