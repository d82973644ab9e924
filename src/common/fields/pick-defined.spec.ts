import { pickDefined } from './pick-defined';

describe('pickDefined', () => {
  it('copies the named fields that are present, null included, and nothing else', () => {
    const body = { name: 'Acme', phone: undefined, description: null, pricing: 0, role: 'admin', _id: 'x' };
    expect(pickDefined(body, ['name', 'phone', 'description', 'pricing'])).toEqual({
      name: 'Acme',
      description: null,
      pricing: 0,
    });
  });

  it('gives an empty object when none is present', () => {
    expect(pickDefined({ name: undefined } as { name?: string }, ['name'])).toEqual({});
  });
});
