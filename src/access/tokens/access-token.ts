/** What an access token carries: the user and the account it acts in (null for a user with none). */
export interface AccessTokenClaims {
  sub: string;
  acc: string | null;
  /** Expiry, in seconds since the epoch (set by JwtService.sign from JWT_EXPIRES_IN). */
  exp?: number;
  /** Issued at, in seconds since the epoch (set by JwtService.sign). */
  iat?: number;
  /** What the login proved: `mfa` (the password and a code) or `password`; missing in older tokens: `password`. */
  asr?: 'password' | 'mfa';
  /**
   * Issued at, in milliseconds since the epoch: a token issued before its user's credentials last
   * changed (password, reset, a factor removed) is refused, to the millisecond. Older tokens have
   * only `iat`, read as the start of its second (so one of the same second as a change is refused).
   */
  ims?: number;
  /**
   * The user's credentials version (`credentialsChangedAt` in ms, 0 never) as read when the login's
   * proof was checked: the token is refused once it differs, whatever the clocks, so a login that
   * read the old password while a reset ran gets a token that the reset ends too.
   */
  cav?: number;
}
