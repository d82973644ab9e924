// The access table of docs/accounts-and-access.md, generated from the routes' declared policies
// (`@Access()`, src/access/policy/access-policy.ts): for each credential, what it reaches and at which assurance.
//
//   npm run access:doc        builds, then rewrites the table between its markers
//
// The declarations are read from the built application (dist/): loading the application module
// declares every route. The route matrix test (test/e2e/route-matrix.e2e-spec.ts) fails while the
// committed table differs from the code's.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const DOC = join(root, 'docs', 'accounts-and-access.md');

require(join(root, 'dist', 'app.module.js'));
const { declaredRoutes } = require(join(root, 'dist', 'access', 'policy', 'access-policy.js'));
const { accessTable, TABLE_START, TABLE_END } = require(join(root, 'dist', 'access', 'access-table.js'));

const text = readFileSync(DOC, 'utf8');
const start = text.indexOf(TABLE_START);
const end = text.indexOf(TABLE_END);
if (start < 0 || end < start) throw new Error(`${DOC}: the access table's markers are missing`);
writeFileSync(
  DOC,
  `${text.slice(0, start + TABLE_START.length)}\n${accessTable(declaredRoutes())}\n${text.slice(end)}`,
);
console.log('wrote docs/accounts-and-access.md (the access table)');
