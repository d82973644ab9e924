import { atVersion, madeBy, newFence, versionOf } from './recorded-changes';

describe("a record's version", () => {
  it('a write is guarded on the version it read, null (matching an absent one) before any recorded change', () => {
    expect(atVersion('evt_a')).toEqual({ lastChange: 'evt_a' });
    expect(atVersion(null)).toEqual({ lastChange: null });
  });

  it('is the last change, whether or not its outbox was emptied', () => {
    expect(versionOf({ lastChange: 'evt_a', outbox: null })).toBe('evt_a');
    expect(versionOf({ outbox: null })).toBeNull();
    expect(versionOf(null)).toBeNull();
  });

  it("tells a lost write's change by the version it left, its outbox emptied or not", () => {
    expect(madeBy({ lastChange: 'evt_a' }, 'evt_a')).toBe(true);
    expect(madeBy({ lastChange: 'evt_b' }, 'evt_a')).toBe(false);
    expect(madeBy({}, 'evt_a')).toBe(false);
    expect(madeBy(null, 'evt_a')).toBe(false);
  });

  it('a fence is a version no change has: no two alike, none an event id', () => {
    const [a, b] = [newFence(), newFence()];
    expect(a).not.toBe(b);
    expect(a).not.toMatch(/^evt_/);
  });
});
