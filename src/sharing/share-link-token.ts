import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'shr_';
const FORM = /^shr_[A-Za-z0-9_-]{43}$/;
const START_LENGTH = 12;

/** `shr_` and 32 random bytes in base64url: shown once; stored as its SHA-256 and its first characters. */
export function generateShareToken(): { token: string; hash: string; start: string } {
  const token = PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashShareToken(token), start: token.slice(0, START_LENGTH) };
}

/** A fast hash is enough: the token is 256 random bits, so there is nothing to guess. */
export function hashShareToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether the text has the form of a token this service issues; anything else names no link, without a read. */
export function hasShareTokenForm(token: string): boolean {
  return FORM.test(token);
}
