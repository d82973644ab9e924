import { escapeRegExp, projectFields, projectListFilter } from './projects.service';

describe('projectFields', () => {
  it('copies only the fields the request carries, never channelId', () => {
    expect(projectFields({ primaryTitle: 'T', channelId: '6650c0ffee0000000000b001', description: null })).toEqual({
      primaryTitle: 'T',
      description: null,
    });
  });

  it('ignores anything that is not a project field', () => {
    const dto = { status: 'draft', _id: 'x', createdAt: 'y' } as never;
    expect(projectFields(dto)).toEqual({ status: 'draft' });
  });

  it('drops duplicates from the lists, keeping the first order', () => {
    expect(projectFields({ topicIds: ['b', 'a', 'b'], supportedModes: ['go', 'read', 'go'] })).toEqual({
      topicIds: ['b', 'a'],
      supportedModes: ['go', 'read'],
    });
  });
});

describe('escapeRegExp', () => {
  it.each(['.*', 'c++ (live)', 'a|b', '^$', '[x]{2}', 'back\\slash', 'a/b?'])('matches %j literally', (text) => {
    const pattern = new RegExp(`^${escapeRegExp(text)}$`);
    expect(pattern.test(text)).toBe(true);
    expect(pattern.test(`${text}!`)).toBe(false);
  });

  it('leaves plain text alone', () => {
    expect(escapeRegExp('Blue Hours')).toBe('Blue Hours');
  });
});

describe('projectListFilter', () => {
  const channelId = '6650c0ffee0000000000b001';

  it('is the channel alone without filters', () => {
    expect(projectListFilter(channelId, {})).toEqual({ channelId });
  });

  it('adds the enum filters as plain equality', () => {
    expect(projectListFilter(channelId, { status: 'published', projectTypeId: 'show', access: 'public' })).toEqual({
      channelId,
      status: 'published',
      projectTypeId: 'show',
      access: 'public',
    });
  });

  it('searches title or description for the literal text, any case', () => {
    const filter = projectListFilter(channelId, { q: 'C++' }) as {
      $or: { primaryTitle?: RegExp; description?: RegExp }[];
    };
    const [title, description] = filter.$or;
    expect(title.primaryTitle).toBeInstanceOf(RegExp);
    expect(title.primaryTitle?.test('learning c++ today')).toBe(true);
    expect(title.primaryTitle?.test('learning c today')).toBe(false);
    expect(description.description?.flags).toBe('i');
  });

  it('ignores an empty q', () => {
    expect(projectListFilter(channelId, { q: '' })).toEqual({ channelId });
  });
});
