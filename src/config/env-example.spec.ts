import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvironmentVariables, validateEnvironment } from './env.validation';

/** The variables `.env.example` documents: `NAME=value` lines, commented out or not. */
function documented(): Map<string, string> {
  const text = readFileSync(join(__dirname, '..', '..', '.env.example'), 'utf8');
  const variables = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^#?\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) variables.set(match[1], match[2]);
  }
  return variables;
}

describe('.env.example', () => {
  const validated = Object.keys(new EnvironmentVariables()).sort();

  it('documents every variable the configuration validates, and no other', () => {
    expect([...documented().keys()].sort()).toEqual(validated);
  });

  it('holds values the configuration accepts, and that are its defaults where it sets them', () => {
    const values = Object.fromEntries(documented());
    const fromExample = validateEnvironment(values) as unknown as Record<string, unknown>;
    const defaults = validateEnvironment({}) as unknown as Record<string, unknown>;
    for (const name of validated) expect({ name, value: fromExample[name] }).toEqual({ name, value: defaults[name] });
  });
});
