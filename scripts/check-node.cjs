#!/usr/bin/env node
// Stops `npm start` and `npm test` at once, with a message that says what to do, on a Node.js older
// than package.json's `engines.node` (npm itself only warns). Written for old Node versions too: no
// syntax newer than ES2015.
'use strict';

const path = require('path');

/** The lowest version `engines.node` allows (`>=24.11` gives [24, 11, 0]). */
function requiredVersion(range) {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(range).trim());
  if (!match)
    throw new Error('package.json engines.node is "' + range + '": this check reads only ">=major.minor.patch"');
  return [Number(match[1]), Number(match[2] || 0), Number(match[3] || 0)];
}

/** Why `version` (as in process.versions.node) cannot run the service under `range`, or null when it can. */
function nodeVersionProblem(version, range) {
  const required = requiredVersion(range);
  const actual = String(version).split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((actual[i] || 0) > required[i]) return null;
    if ((actual[i] || 0) < required[i]) {
      return (
        'This service needs Node.js ' +
        required.join('.') +
        ' or newer (package.json, engines.node "' +
        range +
        '"); ' +
        'this is Node.js ' +
        version +
        ' (' +
        process.execPath +
        '). ' +
        'Install Node.js 24 LTS (https://nodejs.org/, or `nvm install 24`), then run the command again.'
      );
    }
  }
  return null;
}

module.exports = { nodeVersionProblem };

if (require.main === module) {
  const range = require(path.join(__dirname, '..', 'package.json')).engines.node;
  const problem = nodeVersionProblem(process.versions.node, range);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
