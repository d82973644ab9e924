/**
 * Whether a user has a second factor of their own (TOTP or a passkey), for a module that needs the
 * answer but none of the factors' routes and mails (accounts: turning `requireMfa` on). The factors
 * module (src/identity/factors) provides it; the asker resolves it at the first use
 * (`ModuleRef.get(SecondFactorLookup, { strict: false })`), so a command's context that holds the
 * asker needs no factors module.
 */
export abstract class SecondFactorLookup {
  abstract userHasFactor(userId: string): Promise<boolean>;
}
