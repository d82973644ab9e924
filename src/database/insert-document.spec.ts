import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection, Schema } from 'mongoose';
import { insertDocument } from './insert-document';

// A connection that never connects and does not buffer: an insert that gets past the checks fails at once.
const offline = createConnection();
offline.set('bufferCommands', false);

function schemaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return schemaFiles(path);
    return name.endsWith('.schema.ts') ? [path] : [];
  });
}

describe('insertDocument', () => {
  afterAll(() => offline.close());

  it('refuses a model whose schema has save middleware, which it would skip', async () => {
    const schema = new Schema({ name: String });
    schema.pre('save', function stamp() {});
    const model = offline.model('WithSaveHook', schema);
    await expect(insertDocument(model, { name: 'x' })).rejects.toThrow('WithSaveHook has save middleware');
  });

  it("validates with the schema before writing: a missing required field is Mongoose's ValidationError", async () => {
    const model = offline.model('Required', new Schema({ name: { type: String, required: true } }));
    await expect(insertDocument(model, {})).rejects.toMatchObject({ name: 'ValidationError' });
  });

  it("accepts every schema of the service (none has save middleware), with Mongoose's built-in hooks", async () => {
    const src = join(__dirname, '..');
    const schemas = schemaFiles(src).flatMap((file) =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- every schema file, found at run time
      Object.values(require(file) as Record<string, unknown>).filter((value): value is Schema => value instanceof Schema && value.get('_id') !== false),
    );
    expect(schemas.length).toBeGreaterThanOrEqual(15);
    for (const [index, schema] of schemas.entries()) {
      const model = offline.model<Record<string, unknown>>(`Schema${index}`, schema as Schema<Record<string, unknown>>);
      const failure = await insertDocument(model, {}).catch((error: Error) => error);
      expect(String(failure)).not.toContain('save middleware');
    }
  });
});
