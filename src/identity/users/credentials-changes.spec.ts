import { CredentialsChanges } from './credentials-changes';
import type { UsersRepository } from './users.repository';

describe('CredentialsChanges', () => {
  function withUser(
    user: { credentialsChangedAt: Date | null; factorsChangedAt?: Date | null; emailVerifiedAt?: Date | null } | null,
  ) {
    const findCredentialsState = jest.fn(() => Promise.resolve(user));
    return {
      credentials: new CredentialsChanges({ findCredentialsState } as unknown as UsersRepository),
      findById: findCredentialsState,
    };
  }

  it('answers the token check and the verified-email check from one read of the user', async () => {
    const { credentials, findById } = withUser({ credentialsChangedAt: new Date(5_000), emailVerifiedAt: new Date() });
    expect(await credentials.changedAt('u1')).toBe(5_000);
    expect(await credentials.emailVerified('u1')).toBe(true);
    expect(await credentials.changedAt('u1')).toBe(5_000);
    expect(findById).toHaveBeenCalledTimes(1);
  });

  it('reads an unverified user again every time: a link followed on another instance counts at once', async () => {
    const user = { credentialsChangedAt: null, emailVerifiedAt: null as Date | null };
    const { credentials, findById } = withUser(user);
    expect(await credentials.changedAt('u1')).toBe(0);
    expect(await credentials.emailVerified('u1')).toBe(false);
    user.emailVerifiedAt = new Date();
    expect(await credentials.emailVerified('u1')).toBe(true);
    expect(await credentials.emailVerified('u1')).toBe(true);
    expect(findById).toHaveBeenCalledTimes(3);
  });

  it("answers a token's check from the database every time: a change on another instance counts at the next request", async () => {
    const user = {
      credentialsChangedAt: new Date(5_000) as Date | null,
      factorsChangedAt: null as Date | null,
      emailVerifiedAt: new Date(),
    };
    const { credentials, findById } = withUser(user);
    expect(await credentials.current('u1')).toEqual({ changedAt: 5_000, factorsChangedAt: 0 });
    user.credentialsChangedAt = new Date(9_000);
    user.factorsChangedAt = new Date(8_000);
    expect(await credentials.current('u1')).toEqual({ changedAt: 9_000, factorsChangedAt: 8_000 });
    expect(findById).toHaveBeenCalledTimes(2);
  });

  it('a user from before verification existed counts as verified; a gone user as changed forever', async () => {
    expect(await withUser({ credentialsChangedAt: null }).credentials.emailVerified('u1')).toBe(true);
    expect(await withUser(null).credentials.changedAt('u1')).toBe(Number.POSITIVE_INFINITY);
  });
});
