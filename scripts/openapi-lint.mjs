#!/usr/bin/env node
// The document as tools nobody here wrote read it (npm run openapi:lint, run by CI):
// - Redocly's recommended rules: no error;
// - Spectral's OWASP ruleset: no error on the request side (every string, array and integer of a
//   request body, parameter or header bounded), since that is what the service enforces on input;
// - 401 declared on every authenticated operation, 429 on every rate-limited one (the data API,
//   whose operations take an API key) and on login and signup (throttled).
// Response-side OWASP findings (limits on what the service returns) are reported, not failed.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => `${root}node_modules/.bin/${name}`;
const documentPath = `${root}openapi.json`;
const doc = JSON.parse(readFileSync(documentPath, 'utf8'));
const problems = [];

try {
  execFileSync(bin('redocly'), ['lint', documentPath, '--format=summary'], { stdio: 'inherit' });
} catch {
  problems.push('Redocly: errors in openapi.json (see above)');
}

let findings;
try {
  findings = JSON.parse(
    execFileSync(bin('spectral'), ['lint', documentPath, '-r', `${root}.spectral.yaml`, '-f', 'json', '--quiet'], {
      encoding: 'utf8',
    }),
  );
} catch (error) {
  // Spectral exits 1 when it finds errors; its JSON is on stdout all the same.
  findings = JSON.parse(error.stdout || '[]');
}

// Component schemas that requests carry: reachable from a request body or a parameter.
const requestSchemas = new Set();
const visit = (node) => {
  if (!node || typeof node !== 'object') return;
  if (typeof node.$ref === 'string') {
    const name = node.$ref.split('/').pop();
    if (!requestSchemas.has(name)) {
      requestSchemas.add(name);
      visit(doc.components.schemas[name]);
    }
    return;
  }
  Object.values(node).forEach(visit);
};
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => ({ path, method, operation })),
);
for (const { operation } of operations) {
  visit(operation.requestBody);
  visit(operation.parameters);
}
const onRequestSide = ({ path }) =>
  (path[0] === 'components' && path[1] === 'schemas' && requestSchemas.has(path[2])) ||
  (path[0] === 'paths' && (path.includes('parameters') || path.includes('requestBody')));
const requestErrors = findings.filter((finding) => finding.severity === 0 && onRequestSide(finding));
for (const finding of requestErrors)
  problems.push(`Spectral ${finding.code} at ${finding.path.join('/')}: ${finding.message}`);

const isPublic = (operation) => (operation.security ?? []).some((requirement) => Object.keys(requirement).length === 0);
const takesApiKey = (operation) => (operation.security ?? []).some((requirement) => 'apiKey' in requirement);
const THROTTLED = new Set(['login', 'signup', 'signupAlias']);
for (const { path, method, operation } of operations) {
  const statuses = Object.keys(operation.responses ?? {});
  const name = `${method.toUpperCase()} ${path}`;
  if (!isPublic(operation) && !statuses.includes('401'))
    problems.push(`${name}: authenticated, but 401 is not declared`);
  if ((takesApiKey(operation) || THROTTLED.has(operation.operationId)) && !statuses.includes('429'))
    problems.push(`${name}: rate limited, but 429 is not declared`);
}

const responseSide = findings.filter((finding) => finding.severity === 0 && !onRequestSide(finding)).length;
console.log(
  `openapi-lint: ${requestErrors.length} request-side OWASP error(s); ${responseSide} response-side OWASP finding(s) reported, not failed`,
);
if (problems.length > 0) {
  for (const problem of problems) console.error(`  - ${problem}`);
  process.exit(1);
}
