import { JwtService } from '@nestjs/jwt';
import { createHmac, createSecretKey } from 'node:crypto';
import { verifyHs256 } from './access-token';

const SECRET = 'unit-test-secret-of-at-least-thirty-two-characters';
const key = createSecretKey(Buffer.from(SECRET, 'utf8'));
const jwt = new JwtService({ secretOrKeyProvider: () => key, verifyOptions: { algorithms: ['HS256'] } });
const now = Math.floor(Date.now() / 1000);

const part = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
function token(payload: unknown, header: unknown = { alg: 'HS256', typ: 'JWT' }, secret = SECRET): string {
  const signed = `${part(header)}.${part(payload)}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

/** What jsonwebtoken (through @nestjs/jwt, as the service configured it) says of a token. */
function jsonwebtokenAccepts(candidate: string): boolean {
  try {
    jwt.verify(candidate);
    return true;
  } catch {
    return false;
  }
}

describe('verifyHs256', () => {
  const sub = '6650c0ffee0000000000beef';
  const good = token({ sub, acc: null, iat: now, exp: now + 600 });

  it('returns the claims of a valid token, as jsonwebtoken does', async () => {
    expect(verifyHs256(good, key)).toEqual({ sub, acc: null, iat: now, exp: now + 600 });
    const signed = await jwt.signAsync({ sub, acc: sub }, { algorithm: 'HS256', expiresIn: 60 });
    expect(verifyHs256(signed, key)).toMatchObject({ sub, acc: sub });
  });

  const cases: [string, string][] = [
    ['a valid token', good],
    ['no exp at all', token({ sub })],
    ['an expired token', token({ sub, exp: now - 1 })],
    ['exp at this very second', token({ sub, exp: now })],
    ['exp that is no number', token({ sub, exp: String(now + 600) })],
    ['nbf in the future', token({ sub, exp: now + 600, nbf: now + 60 })],
    ['nbf now', token({ sub, exp: now + 600, nbf: now })],
    ['nbf that is no number', token({ sub, exp: now + 600, nbf: 'soon' })],
    ['another secret', token({ sub, exp: now + 600 }, undefined, `${SECRET}x`)],
    ['alg none, unsigned', `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub, exp: now + 600 })}.`],
    ['alg HS512 signed with HS256', token({ sub, exp: now + 600 }, { alg: 'HS512', typ: 'JWT' })],
    ['a tampered payload', `${good.split('.')[0]}.${part({ sub: '6650c0ffee0000000000dead', exp: now + 600 })}.${good.split('.')[2]}`],
    ['a truncated signature', good.slice(0, -2)],
    ['a padded signature', `${good}=`],
    ['two parts', good.split('.').slice(0, 2).join('.')],
    ['four parts', `${good}.x`],
    ['a payload that is no JSON', token('not json')],
    ['a payload that is a JSON string', token('"just a string"')],
    ['a header that is no JSON', `${part('nope')}.${good.split('.').slice(1).join('.')}`],
    ['an empty token', ''],
  ];

  it.each(cases)('agrees with jsonwebtoken on %s', (_name, candidate) => {
    const claims = verifyHs256(candidate, key, Math.floor(Date.now() / 1000));
    const accepted = claims !== null && typeof claims.sub === 'string';
    expect(accepted).toBe(jsonwebtokenAccepts(candidate) && typeof jwt.decode(candidate)?.sub === 'string');
  });

  it('refuses what must be refused', () => {
    for (const [name, candidate] of cases.slice(2)) {
      if (name === 'no exp at all' || name === 'nbf now') continue;
      expect({ name, claims: verifyHs256(candidate, key) }).toEqual({ name, claims: null });
    }
  });
});
