import { createConnection, Schema } from 'mongoose';
import { installedVersion } from './fence';
import { DRIVER_REGISTRIES_WRITTEN_FOR, useLinkedDriverRegistries } from './mongodb-driver-registries';
import { hasOwnSaveMiddleware, SAVE_HOOKS_WRITTEN_FOR } from './mongoose-save-hooks';

/**
 * Every patch of a dependency's internals is fenced to the exact version it was written for. These
 * fail when that version moves: re-read the internals, re-measure (bench/README.md, "Patches"), then
 * move the pin, or drop the patch.
 */
describe('patches of dependencies, fenced by version', () => {
  it('the MongoDB driver mongoose uses is the one the linked registries were written for', () => {
    expect(installedVersion('mongodb', 'mongoose')).toBe(DRIVER_REGISTRIES_WRITTEN_FOR);
  });

  it('the installed Mongoose is the one the save-hook check was written for', () => {
    expect(installedVersion('mongoose')).toBe(SAVE_HOOKS_WRITTEN_FOR);
  });

  it('on another driver version, the registries are left as shipped', () => {
    const sessions = new Set();
    const client = { s: { activeSessions: sessions, activeCursors: new Set() } } as never;
    expect(useLinkedDriverRegistries(client, '99.0.0')).toBe(false);
    expect((client as { s: { activeSessions: unknown } }).s.activeSessions).toBe(sessions);
  });

  it('on another Mongoose version, the save-hook check answers "unknown", so inserts go through Model.create', async () => {
    const schema = new Schema({ name: String });
    expect(hasOwnSaveMiddleware(schema, '99.0.0')).toBeUndefined();
    expect(hasOwnSaveMiddleware(schema)).toBe(false);
    const hooked = new Schema({ name: String });
    hooked.pre('save', function stamp() {});
    expect(hasOwnSaveMiddleware(hooked)).toBe(true);
  });

  it('Model.create, the fallback, validates before writing, as insertDocument does', async () => {
    // A connection that never connects: an insert that got past validation would fail otherwise.
    const offline = createConnection();
    offline.set('bufferCommands', false);
    try {
      const model = offline.model('Fallback', new Schema({ name: { type: String, required: true } }));
      await expect(model.create({})).rejects.toMatchObject({ name: 'ValidationError' });
    } finally {
      await offline.close();
    }
  });
});
