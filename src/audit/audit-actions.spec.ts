import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDITED_ACTIONS } from '../../test/support/audited-actions';
import { AUDIT_ACTIONS } from './audit-entry.schema';

/** The actions a paragraph of the docs lists, `area.a|b` written out as `area.a` and `area.b`. */
function listedActions(paragraph: string): string[] {
  return [...paragraph.matchAll(/`([a-z_]+)\.([a-z_|]+)`/g)].flatMap(([, area, verbs]) =>
    verbs.split('|').map((verb) => `${area}.${verb}`),
  );
}

describe('the audit actions', () => {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'events-and-webhooks.md'), 'utf8');
  const section = page.slice(page.indexOf('## The audit log'));
  // The sentence that lists them: up to its full stop (the dots inside action names are followed by a letter).
  const listed = section.slice(section.indexOf('The actions:'));
  const paragraph = listed.slice(0, listed.search(/\.\s/));

  it("are docs/events-and-webhooks.md's list, which is the events contract's", () => {
    expect(listedActions(paragraph)).toEqual([...AUDIT_ACTIONS]);
  });

  it('each have a row in the end-to-end table that performs them through the API', () => {
    expect(Object.keys(AUDITED_ACTIONS).sort()).toEqual([...AUDIT_ACTIONS].sort());
  });
});
