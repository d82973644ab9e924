import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection, Schema } from 'mongoose';
import { insertDocument } from './insert-document';

// A connection that never connects and does not buffer: an insert that gets past the checks fails at once.
const offline = createConnection();
offline.set('bufferCommands', false);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.schema.ts') ? [path] : [];
  });
}

/** Whether a hook registration (`schema.pre(names, ...)` / `post`) names `save`. */
function namesSave(names: unknown): boolean {
  if (names instanceof RegExp) return names.test('save');
  if (Array.isArray(names)) return names.some(namesSave);
  return names === 'save';
}

/** Whether the code that called `pre`/`post` is Mongoose's own (its built-in save hooks, on every schema). */
function calledByMongoose(stack: string | undefined): boolean {
  const caller = (stack ?? '')
    .split('\n')
    .slice(1)
    .find((frame) => !frame.includes('jest-mock') && !frame.includes(__filename));
  return /node_modules[\\/]mongoose[\\/]/.test(caller ?? '');
}

/** The save hooks the service's code registers while `load` runs: every `pre` and `post` call naming `save`. */
function saveHooksRegisteredBy(load: () => void): string[] {
  const found: string[] = [];
  const spies = (['pre', 'post'] as const).map((method) => {
    const original = Schema.prototype[method] as (...args: unknown[]) => Schema;
    return jest.spyOn(Schema.prototype, method).mockImplementation(function register(this: Schema, ...args: unknown[]) {
      if (namesSave(args[0]) && !calledByMongoose(new Error().stack)) found.push(String(args[0]));
      return original.apply(this, args);
    } as never);
  });
  try {
    load();
    return found;
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

describe('insertDocument', () => {
  afterAll(() => offline.close());

  it("validates with the schema before writing: a missing required field is Mongoose's ValidationError", async () => {
    const model = offline.model('Required', new Schema({ name: { type: String, required: true } }));
    await expect(insertDocument(model, {})).rejects.toMatchObject({ name: 'ValidationError' });
  });

  it('no schema of the service, nor any plugin it applies, registers save middleware, which insertDocument would skip', () => {
    const files = sourceFiles(join(__dirname, '..'));
    expect(files.length).toBeGreaterThanOrEqual(15);
    // This file's module registry has loaded no schema yet: each is built here, and so are its plugins.
    const hooks = saveHooksRegisteredBy(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- every schema file, found at run time
      for (const file of files) require(file);
    });
    expect(hooks).toEqual([]);
  });

  it('the check sees save middleware, named or matched, before or after', () => {
    const hooks = saveHooksRegisteredBy(() => {
      new Schema({}).pre('save', function stamp() {});
      new Schema({}).post(['save', 'updateOne'], function log() {});
      new Schema({}).pre(/^sa/, function any() {});
      new Schema({}).pre('updateOne', function other() {});
    });
    expect(hooks).toEqual(['save', 'save,updateOne', '/^sa/']);
  });
});
