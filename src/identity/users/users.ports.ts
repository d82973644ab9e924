import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import type { SessionFacts } from '../../tenancy/principal';

/** The session a change came through, continuing under a new token: the cookie to send back. */
export interface ContinuedSession {
  readonly token: string;
}

/**
 * What a change of a user's credentials does to their dashboard sessions. The identity modules (a
 * factor added or removed, a new password, a reset) ask through this port; the sessions module
 * (src/sessions), which signs in with these credentials and so imports them, provides it. Resolved
 * at the first use (UserSessionsRef), never imported.
 */
export abstract class UserSessions {
  /**
   * A second factor was added at `at` (already written): every other session keeps only its
   * password; the current one, which has just proven the new factor, continues as `mfa`.
   */
  abstract factorAdded(
    userId: string,
    current: SessionFacts | null,
    origin: AuditOrigin,
    at: Date,
  ): Promise<ContinuedSession | null>;

  /**
   * The credentials changed at `at` (already written: a factor removed, a new password, proven now
   * when `passwordAt` is given): every other session ends; the current one continues.
   */
  abstract credentialsChanged(
    userId: string,
    current: SessionFacts | null,
    origin: AuditOrigin,
    at: Date,
    passwordAt?: Date,
  ): Promise<ContinuedSession | null>;

  /** Every session of the user ends (a password reset): no session continues. */
  abstract endAll(userId: string): Promise<void>;

  /** Sends the continued session's cookie with the answer. */
  abstract setCookie(request: FastifyRequest, reply: FastifyReply, continued: ContinuedSession): void;
}

/**
 * The sessions module's `UserSessions`, resolved at the first use (a command's context holds no
 * sessions module, and needs none): what the identity modules' services and routes inject.
 */
@Injectable()
export class UserSessionsRef {
  constructor(private readonly modules: ModuleRef) {}

  get(): UserSessions {
    return this.modules.get(UserSessions, { strict: false });
  }
}

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
