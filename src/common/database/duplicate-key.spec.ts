import { isDuplicateKey } from './duplicate-key';

describe('isDuplicateKey', () => {
  it('recognises MongoDB duplicate keys', () => {
    expect(isDuplicateKey({ code: 11000, message: 'E11000 duplicate key error' })).toBe(true);
  });

  it("recognises FerretDB's unique-constraint failure on updates", () => {
    const error = {
      code: 1,
      message: "constraint failed: UNIQUE constraint failed: index 'channels_1_usernameKey_1' (2067)",
    };
    expect(isDuplicateKey(error)).toBe(true);
  });

  it.each([
    [{ code: 1, message: 'some other internal error' }],
    [{ code: 121, message: 'Document failed validation' }],
    [new Error('boom')],
    [null],
    [undefined],
  ])('does not mistake %j for one', (error) => {
    expect(isDuplicateKey(error)).toBe(false);
  });
});
