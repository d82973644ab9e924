import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Schema } from 'mongoose';

function schemaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return schemaFiles(path);
    return name.endsWith('.schema.ts') ? [path] : [];
  });
}

const SRC = join(__dirname, '..', '..');

describe('every collection schema', () => {
  const schemas = schemaFiles(SRC).flatMap((file) =>
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- every schema file, found at run time
    Object.entries(require(file) as Record<string, unknown>)
      .filter((entry): entry is [string, Schema] => entry[1] instanceof Schema)
      // Embedded subdocuments (no _id of their own) are not collections.
      .filter(([, schema]) => schema.get('_id') !== false)
      .map(([name, schema]) => ({ name: `${relative(SRC, file)} ${name}`, schema })),
  );

  it('finds the schemas', () => {
    expect(schemas.length).toBeGreaterThanOrEqual(15);
  });

  it.each(schemas.map((entry) => [entry.name, entry.schema] as const))(
    '%s uses the shared schema options (toJSON drops internals)',
    (_name, schema) => {
      expect(typeof schema.get('toJSON')?.transform).toBe('function');
      expect(schema.get('versionKey')).toBe(false);
      const json = (
        schema.get('toJSON')!.transform as (
          doc: unknown,
          ret: Record<string, unknown>,
          options: unknown,
        ) => Record<string, unknown>
      )(undefined, { _id: 'x', projectId: 'p' }, {});
      expect(json).toMatchObject({ id: 'x' });
      expect(json).not.toHaveProperty('_id');
    },
  );
});
