import {
  SIGNED_GRANT_MAX_LENGTH,
  SIGNED_GRANT_MIN_LENGTH,
  SIGNED_GRANT_PATTERN,
  signContentGrant,
  verifyContentGrant,
} from './content-url';

const key = Buffer.alloc(32, 7);
const grant = {
  assetId: '6650c0ffee0000000000e001',
  accountId: '6650c0ffee0000000000a001',
  projectId: '6650c0ffee0000000000b001',
  expiresAt: 1_800_000_000_000,
};

describe('signed content URLs', () => {
  it('verifies what it signed, until the expiry', () => {
    const token = signContentGrant(key, grant);
    expect(verifyContentGrant(key, token, grant.expiresAt - 1)).toEqual(grant);
    expect(verifyContentGrant(key, token, grant.expiresAt)).toBeNull();
  });

  it('refuses a token altered in any field, or signed with another key', () => {
    const token = signContentGrant(key, grant);
    const parts = token.split('.');
    const now = grant.expiresAt - 60_000;
    for (let i = 0; i < 4; i++) {
      const altered = [...parts];
      altered[i] =
        i === 3 ? String(Number(parts[3]) + 3600) : parts[i].replace(/.$/, (last) => (last === '1' ? '2' : '1'));
      expect(verifyContentGrant(key, altered.join('.'), now)).toBeNull();
    }
    expect(verifyContentGrant(Buffer.alloc(32, 8), token, now)).toBeNull();
    expect(verifyContentGrant(key, `${token}x`, now)).toBeNull();
    expect(verifyContentGrant(key, 'not-a-token', now)).toBeNull();
  });

  it('signs tokens of the form and lengths the OpenAPI document states', () => {
    const form = new RegExp(SIGNED_GRANT_PATTERN);
    const shortest = signContentGrant(key, { ...grant, expiresAt: 1000 });
    const longest = signContentGrant(key, { ...grant, expiresAt: 999_999_999_999_000 });
    for (const token of [signContentGrant(key, grant), shortest, longest]) expect(token).toMatch(form);
    expect([shortest.length, longest.length]).toEqual([SIGNED_GRANT_MIN_LENGTH, SIGNED_GRANT_MAX_LENGTH]);
    expect(`${signContentGrant(key, grant)}x`).not.toMatch(form);
  });
});
