import { createHash, randomBytes } from 'node:crypto';

/** Every API key of this (test-mode) service starts so; `sk_` with anything else (`sk_live_...`) is no key of ours. */
export const API_KEY_PREFIX = 'sk_test_';
/** What marks a bearer token as an API key rather than a user's access token (a JWT starts with `eyJ`). */
export const ANY_API_KEY_PREFIX = 'sk_';
/** How many characters of a key lists show, so a person can tell their keys apart. */
export const API_KEY_START_LENGTH = 12;

/** `sk_test_` and 32 random bytes in base64url: 43 characters from `[A-Za-z0-9_-]`. */
const API_KEY_FORM = /^sk_test_[A-Za-z0-9_-]{43}$/;

export interface NewApiKeySecret {
  /** The key itself: shown once, never stored. */
  key: string;
  /** What is stored and looked up: the SHA-256 of the key, in hex. */
  hash: string;
  start: string;
}

export function generateApiKey(): NewApiKeySecret {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), start: key.slice(0, API_KEY_START_LENGTH) };
}

/**
 * A fast hash is enough: the key is 256 random bits, so there is nothing to guess, and the lookup
 * must cost one hash and one indexed read per request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether the token has the form of a key this service issues; anything else is refused without a read. */
export function hasApiKeyForm(token: string): boolean {
  return API_KEY_FORM.test(token);
}
