import { JwtService } from '@nestjs/jwt';
import type { ApiKeysService } from '../api-keys/api-keys.service';
import type { SessionsService } from '../sessions/sessions.service';
import type { StepUpService } from '../sessions/step-up.service';
import type { CredentialsChanges } from '../identity/users/credentials-changes';
import type { SessionsConfig } from '../config/sessions.config';
import type { AccessPolicy } from './policy/access-policy';
import { Authentication } from './authentication';
import { AccessTokens } from './tokens/access-tokens';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const ACCOUNT = '64b7f0c2a1b2c3d4e5f60719';

const POLICY: AccessPolicy = { credentials: ['userToken', 'session'], scope: 'user', assurance: 'password' };

function requestWith(authorization: string): Parameters<Authentication['authenticate']>[0] {
  return { headers: { authorization } } as unknown as Parameters<Authentication['authenticate']>[0];
}

describe('Authentication', () => {
  const jwt = new JwtService({
    secret: 'a-test-secret-of-enough-length-0123456789',
    verifyOptions: { algorithms: ['HS256'] },
  });
  // Credentials that never changed: every token here is issued after.
  const credentials = {
    current: () => Promise.resolve({ changedAt: 0, factorsChangedAt: 0 }),
  } as unknown as CredentialsChanges;
  const authentication = new Authentication(
    new AccessTokens(jwt),
    {} as ApiKeysService,
    {} as SessionsService,
    {} as StepUpService,
    credentials,
    {} as SessionsConfig,
  );

  it('accepts a valid token, and the same token again from memory, as the same principal', async () => {
    const token = jwt.sign({ sub: USER, acc: ACCOUNT }, { expiresIn: 60 });
    const verify = jest.spyOn(jwt, 'verifyAsync');
    const first = requestWith(`Bearer ${token}`);
    await expect(authentication.authenticate(first, POLICY)).resolves.toBeUndefined();
    const again = requestWith(`Bearer ${token}`);
    await expect(authentication.authenticate(again, POLICY)).resolves.toBeUndefined();
    expect(verify).toHaveBeenCalledTimes(1);
    verify.mockRestore();
    // A token without `asr` proved a password only; without `ims`, it dates from the start of its `iat` second.
    const issuedAt =
      (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { iat: number }).iat * 1000;
    expect(again.principal).toEqual({
      kind: 'user',
      userId: USER,
      accountId: ACCOUNT,
      token: { assurance: 'password', issuedAt },
    });
    expect(again.principal).toEqual(first.principal);
    expect(Object.isFrozen(again.principal)).toBe(true);
  });

  it('refuses a remembered token once it has expired', async () => {
    const token = jwt.sign({ sub: USER, acc: ACCOUNT }, { expiresIn: 1 });
    await expect(authentication.authenticate(requestWith(`Bearer ${token}`), POLICY)).resolves.toBeUndefined();
    // exp is in whole seconds: the token is past it within a second and a bit.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(authentication.authenticate(requestWith(`Bearer ${token}`), POLICY)).rejects.toThrow(
      'Invalid or expired token',
    );
  });

  it('refuses a token altered after a remembered one: the cache answers only for the exact text it verified', async () => {
    const token = jwt.sign({ sub: USER, acc: ACCOUNT }, { expiresIn: 60 });
    await authentication.authenticate(requestWith(`Bearer ${token}`), POLICY);
    const [header, , signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: USER, acc: null, exp: 9_999_999_999 })).toString('base64url')}.${signature}`;
    await expect(authentication.authenticate(requestWith(`Bearer ${forged}`), POLICY)).rejects.toThrow(
      'Invalid or expired token',
    );
  });

  it("names a verified token's user while its standing is read, and the standing still decides", async () => {
    let land!: (state: { changedAt: number; factorsChangedAt: number }) => void;
    const standing = new Promise<{ changedAt: number; factorsChangedAt: number }>((resolve) => (land = resolve));
    const reading = new Authentication(
      new AccessTokens(jwt),
      {} as ApiKeysService,
      {} as SessionsService,
      {} as StepUpService,
      { current: () => standing } as unknown as CredentialsChanges,
      {} as SessionsConfig,
    );
    const token = jwt.sign({ sub: USER, acc: ACCOUNT }, { expiresIn: 60 });
    const claimed = jest.fn();
    const request = requestWith(`Bearer ${token}`);
    const authenticated = reading.authenticate(request, POLICY, claimed);
    await new Promise((next) => setImmediate(next));
    // Named before the standing answered, and no principal set yet.
    expect(claimed).toHaveBeenCalledWith(expect.objectContaining({ userId: USER, accountId: ACCOUNT }));
    expect(request.principal).toBeUndefined();
    // Credentials changed after the token was issued: refused all the same.
    land({ changedAt: Date.now() + 60_000, factorsChangedAt: 0 });
    await expect(authenticated).rejects.toMatchObject({ status: 401 });
    expect(request.principal).toBeUndefined();
  });

  it('names nobody for a token that does not verify', async () => {
    const claimed = jest.fn();
    const forged = new JwtService({ secret: 'another-secret-of-enough-length-0123456789' }).sign({ sub: USER });
    await expect(authentication.authenticate(requestWith(`Bearer ${forged}`), POLICY, claimed)).rejects.toMatchObject({
      status: 401,
    });
    expect(claimed).not.toHaveBeenCalled();
  });
});
