import { Logger } from '@nestjs/common';
import { Types } from 'mongoose';
import { FerretdbSizeWatch } from '../../src/database/ferretdb-size-watch';
import { createTestApp, TestApp } from '../support/test-app';

/** The one warning a tenant gets in the log when its records of one kind make its lists slow on FerretDB. */
describe('the size watch of the embedded default', () => {
  let t: TestApp;
  let watch: FerretdbSizeWatch;
  const large = new Types.ObjectId();
  const small = new Types.ObjectId();

  beforeAll(async () => {
    t = await createTestApp();
    watch = t.app.get(FerretdbSizeWatch);
    const customers = (projectId: Types.ObjectId, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        projectId,
        email: `c${i}.${projectId.toHexString()}@example.com`,
        createdAt: new Date(),
        updatedAt: new Date(),
      }));
    await t.db.collection('customers').insertMany([...customers(large, 30), ...customers(small, 12)]);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('watches on FerretDB only', () => {
    // The tests' own database is the embedded FerretDB unless the run was given a MONGODB_URI.
    expect(watch.watching).toBe(!process.env.MONGODB_URI);
  });

  it('names the tenant past the mark, with its count, once; not a tenant under it', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      // 42 records in the collection, but no tenant holds 40.
      expect(await watch.check(40)).toEqual([]);

      expect(await watch.check(20)).toEqual([{ collection: 'customers', projectId: large.toHexString(), records: 30 }]);
      const warnings = warn.mock.calls
        .map(([message]) => String(message))
        .filter((message) => message.includes(large.toHexString()));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('holds 30 records in customers');
      expect(warnings[0]).toContain('MONGODB_URI');

      // Told once per process.
      expect(await watch.check(20)).toEqual([]);
      expect(warn.mock.calls.filter(([message]) => String(message).includes(large.toHexString()))).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });
});
