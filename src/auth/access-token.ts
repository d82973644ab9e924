import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';

/** Three base64url parts, the signature included (the form jws accepts, with a signature required). */
const SIGNED_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The claims of an HS256 token signed with `key`, or null. What jsonwebtoken's `verify` checks with
 * `algorithms: ['HS256']` and no other option, with node:crypto alone: the header names HS256, the
 * signature is the HMAC of the token's first two parts (compared in constant time, as the exact
 * base64url text jws compares), the payload is a JSON object, and `nbf` and `exp`, when present,
 * are numbers that hold at the current second (`exp` is exclusive). It runs on every request:
 * one HMAC and two small JSON parses, where jsonwebtoken's decoding and option checks cost about
 * three times the HMAC. Signing stays with @nestjs/jwt.
 */
export function verifyHs256(token: string, key: KeyObject, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, unknown> | null {
  if (!SIGNED_JWT.test(token)) return null;
  const headerEnd = token.indexOf('.');
  const payloadEnd = token.indexOf('.', headerEnd + 1);
  const header = parseJsonObject(token.slice(0, headerEnd));
  if (!header || header.alg !== 'HS256') return null;

  const expected = Buffer.from(createHmac('sha256', key).update(token.slice(0, payloadEnd)).digest('base64url'));
  const given = Buffer.from(token.slice(payloadEnd + 1));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;

  const claims = parseJsonObject(token.slice(headerEnd + 1, payloadEnd));
  if (!claims) return null;
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > nowSeconds)) return null;
  if (claims.exp !== undefined && (typeof claims.exp !== 'number' || nowSeconds >= claims.exp)) return null;
  return claims;
}

function parseJsonObject(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
