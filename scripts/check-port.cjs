#!/usr/bin/env node
// Stops `npm start` before it builds when the port the service would listen on is taken (another
// `npm start`, most likely): building would rewrite dist/ under the running service, and the start
// would then fail on the port anyway. PORT and HOST are read as the service reads them: the
// environment first, then a `.env` file in the working directory, then the defaults.
'use strict';

const fs = require('fs');
const net = require('net');
const util = require('util');

/** PORT and HOST as the service would take them. */
function listenAddress(env, envFile) {
  let file = {};
  if (fs.existsSync(envFile)) file = util.parseEnv(fs.readFileSync(envFile, 'utf8'));
  const pick = (name) => (env[name] !== undefined && env[name] !== '' ? env[name] : file[name]);
  return { port: Number(pick('PORT') || 3000), host: pick('HOST') || '0.0.0.0' };
}

/** Null when `port` can be listened on at `host`, else what to tell the person starting the service. */
function portProblem(port, host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error) => {
      if (error.code !== 'EADDRINUSE') return resolve(null); // not ours to judge: the service will say
      resolve(
        `Port ${port} is already in use on ${host}: is the service already running (another npm start)? ` +
          'Stop it, or start this one on another port (PORT=3001 npm start; with its own DATA_DIR to keep its own database).',
      );
    });
    server.listen(port, host, () => server.close(() => resolve(null)));
  });
}

module.exports = { listenAddress, portProblem };

if (require.main === module) {
  const { port, host } = listenAddress(process.env, '.env');
  portProblem(port, host).then((problem) => {
    if (problem) {
      console.error(problem);
      process.exit(1);
    }
  });
}
