import { LRUCache } from 'lru-cache';
import { growingLru } from './growing-lru';

describe('growingLru', () => {
  it('holds at most its bound, forgetting the least recently used entry', () => {
    const cache = growingLru<string, number>(3);
    cache.set('a', 1).set('b', 2).set('c', 3);
    expect(cache.get('a')).toBe(1); // now the most recently used
    cache.set('d', 4);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    expect(cache.size).toBe(3);
  });

  it('keeps the options it is given, a TTL included', () => {
    let now = 1_000;
    const cache = growingLru<string, string>(10, { ttl: 50, ttlResolution: 0, perf: { now: () => now } });
    cache.set('token', 'verified');
    now += 49;
    expect(cache.get('token')).toBe('verified');
    now += 2;
    expect(cache.get('token')).toBeUndefined();
  });

  it('allocates nothing for its bound up front: its storage is what it holds', () => {
    const bounded = growingLru<string, number>(20_000);
    // lru-cache preallocates only for `max`; the growing cache has none, its bound is `maxSize`.
    expect(bounded.max).toBe(0);
    expect(bounded.maxSize).toBe(20_000);
    const preallocated = new LRUCache<string, number>({ max: 100_000 });
    expect(preallocated.max).toBe(100_000);
    for (let i = 0; i < 20_001; i += 1) bounded.set(String(i), i);
    expect(bounded.size).toBe(20_000);
    expect(bounded.has('0')).toBe(false);
  });
});
