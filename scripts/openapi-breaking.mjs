// Reads oasdiff's breaking changes (JSON, standard input) and the "API changes" section of
// CHANGELOG.md; prints every breaking change that no line of the section lists, and exits 1 if any.
// A line lists a change when it holds "<METHOD> <path> <oasdiff's message>"; `*` in a line stands
// for any text, so one line can accept a family ("removed the enum value `*` of the request property `country`").
import { readFileSync } from 'node:fs';

const changes = JSON.parse(readFileSync(0, 'utf8') || '[]');
const changelog = readFileSync(process.argv[2] ?? 'CHANGELOG.md', 'utf8');

const section = [];
let inside = false;
for (const line of changelog.split('\n')) {
  if (/^##+ API changes\s*$/.test(line)) inside = true;
  else if (inside && /^#{1,2} /.test(line)) inside = false;
  else if (inside && line.trim().startsWith('- ')) section.push(line.trim().slice(2).trim());
}

const escape = (text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
const accepted = section.map((entry) => new RegExp(`^${entry.split('*').map(escape).join('.*')}$`));

const unlisted = changes
  .filter((change) => change.level >= 3)
  .map((change) => `${change.operation} ${change.path} ${change.text}`)
  .filter((described) => !accepted.some((pattern) => pattern.test(described)));

for (const described of unlisted) console.log(`not listed: ${described}`);
console.log(
  `${changes.length} breaking change(s) found by oasdiff, ${unlisted.length} not listed in CHANGELOG.md under "API changes"`,
);
process.exit(unlisted.length > 0 ? 1 : 0);
