import { isFlatJsonObject } from './flat-json-object';

describe('isFlatJsonObject', () => {
  it('accepts an address-like object', () => {
    expect(isFlatJsonObject({ line1: '1 Main St', city: 'Springfield', postal_code: '12345', floor: 3, primary: true, note: null })).toBe(true);
    expect(isFlatJsonObject({})).toBe(true);
  });

  it.each([
    ['an array', ['a']],
    ['null', null],
    ['a string', 'Main St'],
    ['a nested object', { city: { name: 'x' } }],
    ['a nested array', { lines: ['a', 'b'] }],
    ['a $ key', { $where: 'x' }],
    ['a dotted key', { 'a.b': 'x' }],
    ['an empty key', { '': 'x' }],
    ['too many keys', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]))],
    ['a very long string', { line1: 'x'.repeat(501) }],
  ])('refuses %s', (_label, value) => {
    expect(isFlatJsonObject(value)).toBe(false);
  });
});
