import { FILTERS_MAX, normalizeSearch, QUERY_MAX_LENGTH } from './search-history.service';

describe('normalizeSearch', () => {
  it('gives a repeat the same key whatever its case, spacing or filter order, and keeps the spelling typed last', () => {
    const first = normalizeSearch({
      surface: 'projects',
      query: '  Summer   Album ',
      filters: { status: 'published', access: 'public' },
    });
    const again = normalizeSearch({
      surface: 'projects',
      query: 'summer album',
      filters: { access: 'public', status: 'published' },
    });
    expect(first).toEqual({
      surface: 'projects',
      query: 'Summer Album',
      filters: { access: 'public', status: 'published' },
      key: again!.key,
    });
    expect(again!.query).toBe('summer album');
  });

  it('tells apart another surface, other words and other filters', () => {
    const key = (surface: 'projects' | 'customers', query: string, filters: Record<string, string> = {}) =>
      normalizeSearch({ surface, query, filters })!.key;
    const base = key('projects', 'jenny');
    expect(key('customers', 'jenny')).not.toBe(base);
    expect(key('projects', 'jenny r')).not.toBe(base);
    expect(key('projects', 'jenny', { status: 'draft' })).not.toBe(base);
    // A filter split differently from the words is another search, not a collision of their concatenation.
    expect(key('projects', 'a', { b: 'c' })).not.toBe(key('projects', 'ab', { c: 'c' }));
  });

  it('drops filters without a value or with a name no search uses, caps the query and the filters, and has nothing to keep for an empty search', () => {
    const search = normalizeSearch({
      surface: 'customers',
      query: 'x'.repeat(QUERY_MAX_LENGTH + 50),
      filters: { status: ' ', $where: 'sleep', 'a.b': 'c', sort: 'newest', n: 5 as unknown as string },
    });
    expect(search!.query).toHaveLength(QUERY_MAX_LENGTH);
    expect(search!.filters).toEqual({ sort: 'newest' });
    const many = Object.fromEntries(
      Array.from({ length: FILTERS_MAX + 5 }, (_, i) => [`f${String(i).padStart(2, '0')}`, 'v']),
    );
    expect(Object.keys(normalizeSearch({ surface: 'payments', query: '', filters: many })!.filters)).toHaveLength(
      FILTERS_MAX,
    );
    expect(normalizeSearch({ surface: 'payments', query: '  ', filters: { status: '' } })).toBeNull();
  });

  it('refuses a surface no search box has: a wiring bug, not input', () => {
    expect(() => normalizeSearch({ surface: 'orders' as 'payments', query: 'x', filters: {} })).toThrow(
      'Unknown search surface: orders',
    );
  });
});
