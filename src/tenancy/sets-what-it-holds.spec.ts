import { Types } from 'mongoose';
import { setsWhatItHolds } from './tenant-records';

describe('setsWhatItHolds', () => {
  const id = new Types.ObjectId();
  const at = new Date('2026-11-29T10:00:00.000Z');
  const current = { _id: id, name: 'Acme', ownerId: id, at, tags: ['a', 'b'], note: null, address: { city: 'Oslo' } };

  it('holds for fields set to what the record holds: ids as their hex, dates as dates, nothing set', () => {
    expect(setsWhatItHolds(current, { $set: {} })).toBe(true);
    expect(setsWhatItHolds(current, { $set: { name: 'Acme', ownerId: id.toHexString(), at: new Date(at) } })).toBe(
      true,
    );
    expect(setsWhatItHolds(current, { $set: { tags: ['a', 'b'], note: null, address: { city: 'Oslo' } } })).toBe(true);
  });

  it('counts anything else as a change', () => {
    expect(setsWhatItHolds(current, { $set: { name: 'Acme Ltd' } })).toBe(false);
    expect(setsWhatItHolds(current, { $set: { tags: ['b', 'a'] } })).toBe(false);
    expect(setsWhatItHolds(current, { $set: { missing: null } })).toBe(false);
    expect(setsWhatItHolds(current, { $set: { 'address.city': 'Oslo' } })).toBe(false);
    expect(setsWhatItHolds(current, { $set: { updatedAt: at } })).toBe(false);
    expect(setsWhatItHolds(current, { $set: { name: 'Acme' }, $inc: { count: 1 } })).toBe(false);
    expect(setsWhatItHolds(current, { $unset: { note: 1 } })).toBe(false);
  });
});
