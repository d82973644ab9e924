import { hashRecoveryCode } from './mfa.service';

describe('hashRecoveryCode', () => {
  it('reads a code as typed: case, spaces and the dash do not matter', () => {
    expect(hashRecoveryCode('ABCDE-FGHIJ')).toBe(hashRecoveryCode('abcde fghij'));
    expect(hashRecoveryCode('abcdefghij')).toBe(hashRecoveryCode('abcde-fghij'));
    expect(hashRecoveryCode('abcde-fghik')).not.toBe(hashRecoveryCode('abcde-fghij'));
  });
});
