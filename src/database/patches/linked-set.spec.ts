import { LinkedSet } from './linked-set';

const member = (name: string) => ({ name });

describe('LinkedSet', () => {
  it('adds, finds and deletes members as a Set does, in insertion order', () => {
    const [a, b, c] = [member('a'), member('b'), member('c')];
    const set = new LinkedSet<{ name: string }>();
    set.add(a).add(b).add(c);
    expect(set.size).toBe(3);
    expect([...set]).toEqual([a, b, c]);
    expect(set.has(b)).toBe(true);

    expect(set.delete(b)).toBe(true);
    expect(set.has(b)).toBe(false);
    expect(set.size).toBe(2);
    expect([...set]).toEqual([a, c]);
    expect(set.delete(b)).toBe(false);
  });

  it('keeps one entry for a member added twice and ignores deleting a stranger', () => {
    const a = member('a');
    const set = new LinkedSet([a, a]);
    expect(set.size).toBe(1);
    expect(set.delete(member('a'))).toBe(false);
    expect([...set]).toEqual([a]);
  });

  it('deletes the first, the last and the only member, and adds again afterwards', () => {
    const [a, b, c] = [member('a'), member('b'), member('c')];
    const set = new LinkedSet([a, b, c]);
    set.delete(a);
    set.delete(c);
    expect([...set]).toEqual([b]);
    set.delete(b);
    expect(set.size).toBe(0);
    expect([...set]).toEqual([]);
    set.add(c).add(a);
    expect([...set]).toEqual([c, a]);
  });

  it('iterates over the members of the moment, so members may leave while it runs (as ending a session does)', () => {
    const members = ['a', 'b', 'c', 'd'].map(member);
    const set = new LinkedSet(members);
    const seen: string[] = [];
    for (const value of set) {
      seen.push(value.name);
      set.delete(value);
      if (value.name === 'a') set.delete(members[1]);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    expect(set.size).toBe(0);
  });

  it('clears every member, and Array.from over it sees them all first (as MongoClient.close does)', () => {
    const members = ['a', 'b'].map(member);
    const set = new LinkedSet(members);
    const ended = Array.from(set, (value) => {
      set.delete(value);
      return value.name;
    });
    set.clear();
    expect(ended).toEqual(['a', 'b']);
    expect(set.size).toBe(0);
    expect(set.has(members[0])).toBe(false);
  });
});
