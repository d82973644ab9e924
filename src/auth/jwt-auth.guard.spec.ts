import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import type { ApiKeysService } from '../api-keys/api-keys.service';
import type { SessionsService } from '../sessions/sessions.service';
import type { CredentialsChanges } from '../users/credentials-changes';
import type { SessionsConfig } from '../config/sessions.config';
import { JwtAuthGuard } from './jwt-auth.guard';

const USER = '64b7f0c2a1b2c3d4e5f60718';
const ACCOUNT = '64b7f0c2a1b2c3d4e5f60719';

function httpContext(authorization: string): { context: ExecutionContext; request: Record<string, unknown> } {
  const request: Record<string, unknown> = { headers: { authorization } };
  const context = {
    getHandler: () => function route() {},
    getClass: () => class Controller {},
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  return { context, request };
}

describe('JwtAuthGuard', () => {
  const jwt = new JwtService({ secret: 'a-test-secret-of-enough-length-0123456789', verifyOptions: { algorithms: ['HS256'] } });
  // Credentials that never changed: every token here is issued after.
  const credentials = { current: () => Promise.resolve({ changedAt: 0, factorsChangedAt: 0 }) } as unknown as CredentialsChanges;
  const guard = new JwtAuthGuard(new Reflector(), jwt, {} as ApiKeysService, {} as SessionsService, credentials, {} as SessionsConfig);

  it('accepts a valid token, and the same token again from memory, as the same principal', async () => {
    const token = jwt.sign({ sub: USER, acc: ACCOUNT }, { expiresIn: 60 });
    const verify = jest.spyOn(jwt, 'verifyAsync');
    const first = httpContext(`Bearer ${token}`);
    await expect(guard.canActivate(first.context)).resolves.toBe(true);
    const again = httpContext(`Bearer ${token}`);
    await expect(guard.canActivate(again.context)).resolves.toBe(true);
    expect(verify).toHaveBeenCalledTimes(1);
    verify.mockRestore();
    // A token without `asr` proved a password only; without `ims`, it dates from the start of its `iat` second.
    const issuedAt = (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { iat: number }).iat * 1000;
    expect(again.request.principal).toEqual({ kind: 'user', userId: USER, accountId: ACCOUNT, token: { assurance: 'password', issuedAt } });
    expect(again.request.principal).toEqual(first.request.principal);
    expect(Object.isFrozen(again.request.principal)).toBe(true);
  });

  it('refuses a remembered token once it has expired', async () => {
    const token = jwt.sign({ sub: USER, acc: ACCOUNT }, { expiresIn: 1 });
    await expect(guard.canActivate(httpContext(`Bearer ${token}`).context)).resolves.toBe(true);
    // exp is in whole seconds: the token is past it within a second and a bit.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(guard.canActivate(httpContext(`Bearer ${token}`).context)).rejects.toThrow('Invalid or expired token');
  });

  it('refuses a token altered after a remembered one: the cache answers only for the exact text it verified', async () => {
    const token = jwt.sign({ sub: USER, acc: ACCOUNT }, { expiresIn: 60 });
    await guard.canActivate(httpContext(`Bearer ${token}`).context);
    const [header, , signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: USER, acc: null, exp: 9_999_999_999 })).toString('base64url')}.${signature}`;
    await expect(guard.canActivate(httpContext(`Bearer ${forged}`).context)).rejects.toThrow('Invalid or expired token');
  });
});
