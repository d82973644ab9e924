import { randomBytes } from 'node:crypto';
import { createConnection, Schema, Types, type Connection } from 'mongoose';
import { Records } from '../../src/database/records';
import { tenantOwned } from '../../src/tenancy/tenant-owned.plugin';
import { NotTenantOwnedError, TenantRecords } from '../../src/tenancy/tenant-records';
import { tenantScope } from '../../src/tenancy/tenant-scope';
import { testDatabaseUri } from '../support/test-database';

interface Note {
  _id: Types.ObjectId;
  projectId: Types.ObjectId;
  title: string;
  count: number;
  secret?: string;
}

/** The data seam every repository is built on, against the real database. */
describe('Records and TenantRecords', () => {
  let connection: Connection;
  let notes: TenantRecords<Note>;
  let plain: Records<Note>;
  const accountId = new Types.ObjectId().toHexString();
  const mine = tenantScope(accountId, new Types.ObjectId().toHexString());
  const theirs = tenantScope(accountId, new Types.ObjectId().toHexString());

  beforeAll(async () => {
    connection = await createConnection(testDatabaseUri(`records_${randomBytes(4).toString('hex')}`), {
      sanitizeFilter: true,
    }).asPromise();
    const schema = new Schema<Note>(
      {
        title: { type: String, required: true },
        count: { type: Number, default: 0, min: 0 },
        secret: { type: String, select: false },
      },
      { versionKey: false },
    );
    schema.plugin(tenantOwned);
    const model = connection.model<Note>('Note', schema);
    notes = new TenantRecords(model);
    plain = new Records(model);
  });

  afterAll(async () => {
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
  });

  it('inserts into the scope and reads only the scope', async () => {
    const created = await notes.insert(mine, { title: 'a', secret: 's' });
    await notes.insert(theirs, { title: 'b' });
    expect(String(created.projectId)).toBe(mine.projectId);
    expect(await notes.findById(mine, String(created._id))).toMatchObject({ title: 'a', count: 0 });
    expect(await notes.findById(theirs, String(created._id))).toBeNull();
    expect(await notes.existsById(theirs, String(created._id))).toBe(false);
    expect(await notes.count(mine)).toBe(1);
    expect((await notes.find(theirs)).map((note) => note.title)).toEqual(['b']);
  });

  it('keeps the scope last: a condition naming another project cannot replace it', async () => {
    const rows = await notes.find(mine, { projectId: new Types.ObjectId(theirs.projectId) });
    expect(rows.map((note) => note.title)).toEqual(['a']);
  });

  it('hides select: false fields unless a read includes them', async () => {
    const [note] = await notes.find(mine);
    expect(note).not.toHaveProperty('secret');
    expect(await plain.findById(note._id, { include: ['secret'] })).toMatchObject({ secret: 's' });
    expect(await plain.findById(note._id, { fields: ['title', 'secret'] })).toEqual({ _id: note._id, title: 'a' });
  });

  it('answers a malformed id as no record', async () => {
    expect(await notes.findById(mine, 'not-an-id')).toBeNull();
    expect(await notes.existsById(mine, '123456789012')).toBe(false);
  });

  it("keeps a repository's operators in updates, which sanitizeFilter would otherwise neutralise", async () => {
    const [note] = await notes.find(mine);
    const guarded = await notes.updateOne(mine, { _id: note._id, count: { $lt: 1 } }, { $inc: { count: 1 } });
    expect(guarded).toEqual({ matched: 1, modified: 1 });
    const refused = await notes.updateAndGet(mine, { _id: note._id, count: { $lt: 1 } }, { $inc: { count: 1 } });
    expect(refused).toBeNull();
    const updated = await notes.updateAndGet(mine, { $or: [{ count: { $gte: 1 } }] }, { $set: { title: 'c' } });
    expect(updated).toMatchObject({ title: 'c', count: 1 });
    expect(updated).not.toHaveProperty('secret');
    expect(await plain.findById(note._id, { include: ['secret'] })).toMatchObject({ secret: 's' });
  });

  it("validates updates when asked, with the schema's validators", async () => {
    const [note] = await notes.find(mine);
    await expect(
      notes.updateOne(mine, { _id: note._id }, { $set: { count: -1 } }, { validate: true }),
    ).rejects.toMatchObject({ name: 'ValidationError' });
  });

  it('updates and deletes nothing in another scope', async () => {
    const [note] = await notes.find(mine);
    expect(await notes.updateOne(theirs, { _id: note._id }, { $set: { title: 'x' } })).toEqual({
      matched: 0,
      modified: 0,
    });
    expect(await notes.deleteOne(theirs, { _id: note._id })).toBe(false);
    expect(await notes.deleteOne(mine, { _id: note._id })).toBe(true);
  });

  it('aggregates from a match on the scope', async () => {
    await notes.insert(mine, { title: 'd', count: 2 });
    await notes.insert(mine, { title: 'e', count: 3 });
    const [sum] = await notes.aggregate<{ total: number }>(mine, {}, [
      { $group: { _id: null, total: { $sum: '$count' } } },
    ]);
    expect(sum.total).toBe(5);
  });

  it('inserts unless one exists, and then writes nothing to the one there, its updatedAt included', async () => {
    const schema = new Schema<Note & { createdAt: Date; updatedAt: Date }>(
      { title: { type: String, required: true }, count: { type: Number, default: 0 } },
      { versionKey: false, timestamps: true },
    );
    const stamped = new Records(connection.model('StampedNote', schema));
    const id = await stamped.insertUnlessExists({ title: 'Once' }, { count: 1 });
    expect(id).toBeInstanceOf(Types.ObjectId);
    const first = await stamped.findById<{ createdAt: Date; updatedAt: Date; count: number }>(String(id));
    expect(first?.createdAt).toBeInstanceOf(Date);
    expect(first?.updatedAt).toEqual(first?.createdAt);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await stamped.insertUnlessExists({ title: 'Once' }, { count: 2 })).toBeNull();
    expect(await stamped.findById(String(id))).toEqual(first);
  });

  it('refuses a model that is not tenant-owned', () => {
    const model = connection.model('Loose', new Schema({ title: String }));
    expect(() => new TenantRecords(model)).toThrow(NotTenantOwnedError);
  });
});
