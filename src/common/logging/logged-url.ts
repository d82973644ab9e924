/**
 * A request's URL as the logs may show it. A few URLs carry a secret of their own: the one-time upload
 * URL of an asset (`/uploads/:assetId/:token`), a signed content URL (`/asset-content/:signedGrant`,
 * which reads the asset's bytes until it expires), a password reset's or an email verification's code in
 * the path, and the mailed links' and invitation links' `token` / `invitation` / `code` in the query.
 * Logs are read by more people than those secrets were meant for, so each is replaced by `[redacted]`.
 */
const SECRET_PATH =
  /^(\/uploads\/[^/?#]+\/|\/asset-content\/|\/api\/v1\/password-resets\/|\/api\/v1\/email-verifications\/)[^/?#]+/;
const SECRET_QUERY = /([?&](?:token|invitation|code)=)[^&#]*/gi;
const REDACTED = '[redacted]';

export function loggedUrl(url: string): string {
  const path = url.replace(SECRET_PATH, `$1${REDACTED}`);
  // Every request's line runs this: a URL without `=` has no query secret, and skips the second scan.
  return url.includes('=') ? path.replace(SECRET_QUERY, `$1${REDACTED}`) : path;
}
