import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a signed content URL names: one asset of one tenant, until `expiresAt` (ms since the epoch). */
export interface ContentGrant {
  assetId: string;
  accountId: string;
  projectId: string;
  expiresAt: number;
}

const ID = /^[0-9a-f]{24}$/;

/**
 * The form of a token, as the OpenAPI document states it: three ids, the expiry in seconds (1 to 12
 * digits) and the HMAC-SHA256 in base64url (43 characters, no padding), joined by dots.
 */
export const SIGNED_GRANT_PATTERN = '^[0-9a-f]{24}\\.[0-9a-f]{24}\\.[0-9a-f]{24}\\.[0-9]{1,12}\\.[A-Za-z0-9_-]{43}$';
export const SIGNED_GRANT_MIN_LENGTH = 3 * 24 + 1 + 43 + 4;
export const SIGNED_GRANT_MAX_LENGTH = 3 * 24 + 12 + 43 + 4;

function signature(key: Buffer, fields: string): string {
  return createHmac('sha256', key).update(`asset-content\n${fields}`).digest('base64url');
}

/**
 * The token of a signed content URL: the asset, its tenant and the expiry (seconds), then an
 * HMAC-SHA256 of them with the service's key. Anyone holding it reads the asset's bytes until it
 * expires, so it is short-lived and names exactly one asset.
 */
export function signContentGrant(key: Buffer, grant: ContentGrant): string {
  const fields = [grant.assetId, grant.accountId, grant.projectId, String(Math.floor(grant.expiresAt / 1000))].join(
    '.',
  );
  return `${fields}.${signature(key, fields)}`;
}

/** The grant a token carries, or null for a malformed, altered or expired one. */
export function verifyContentGrant(key: Buffer, token: string, now = Date.now()): ContentGrant | null {
  const parts = token.split('.');
  if (parts.length !== 5) return null;
  const [assetId, accountId, projectId, expires, given] = parts;
  if (![assetId, accountId, projectId].every((id) => ID.test(id)) || !/^\d{1,12}$/.test(expires)) return null;
  const expected = Buffer.from(signature(key, parts.slice(0, 4).join('.')));
  const received = Buffer.from(given);
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) return null;
  const expiresAt = Number(expires) * 1000;
  if (expiresAt <= now) return null;
  return { assetId, accountId, projectId, expiresAt };
}
