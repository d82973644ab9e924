import { LRUCache } from 'lru-cache';

/** What a cache may be given besides its bound, which `growingLru` sets. */
export type GrowingLruOptions<K extends NonNullable<unknown>, V extends NonNullable<unknown>> = Omit<
  LRUCache.Options<K, V, unknown>,
  'max' | 'maxSize' | 'maxEntrySize' | 'sizeCalculation'
>;

const ONE = (): number => 1;

/**
 * An LRU cache of at most `entries` entries whose storage grows with what it holds. Given `max`,
 * lru-cache allocates its key, value, link and TTL arrays for `max` entries when it is made, so every
 * bounded cache of an instance costs its whole bound from the start, at idle too; given `maxSize` with
 * each entry counted as 1, it keeps the same bound and evicts the same least recently used entry, with
 * arrays that grow as entries arrive.
 */
export function growingLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  entries: number,
  options: GrowingLruOptions<K, V> = {},
): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...options, maxSize: entries, sizeCalculation: ONE });
}
