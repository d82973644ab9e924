import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Types } from 'mongoose';
import type { AuditOrigin } from '../audit/audit-context.decorator';
import { sessionsConfig } from '../config/sessions.config';
import type { ContinuedSession, UserSessions } from '../identity/users/users.ports';
import type { SessionFacts } from '../tenancy/principal';
import type { Session } from './session.schema';
import { setSessionCookie } from './session-cookie';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

/**
 * What a change of a user's credentials, made in the identity modules, does to their sessions: the
 * `UserSessions` port those modules ask through (src/identity/users/user-sessions.port.ts). Other
 * sessions are lowered or ended here; the one the change came through continues under a new token
 * (SessionsService.replace), made after the change.
 */
@Injectable()
export class SessionsOnCredentialChange implements UserSessions {
  constructor(
    private readonly sessions: SessionsService,
    private readonly records: SessionsRepository,
    @Inject(sessionsConfig.KEY) private readonly config: ConfigType<typeof sessionsConfig>,
  ) {}

  /**
   * The user's factors changed at `at` (one added): every other session keeps only its password, and
   * tokens issued before count as `password` (`factorsChangedAt`). The current session, if the
   * factor was added through one, has just proven the new factor (a code of it, or its registration
   * with the user verified), as a sign-in with it would: it continues as `mfa` under a new id.
   */
  async factorAdded(
    userId: string,
    current: SessionFacts | null,
    origin: AuditOrigin,
    at: Date,
  ): Promise<{ token: string; session: Session } | null> {
    await this.records.lowerAllBut(userId, current ? toId(current.id) : null);
    return current ? this.sessions.replace(current, origin, new Date(at.getTime() + 1), 'mfa') : null;
  }

  /**
   * The credentials changed at `at` (already written: tokens issued before it fail): every other
   * session ends, and the current one (if any) continues under a new token made after the change.
   */
  async credentialsChanged(
    userId: string,
    current: SessionFacts | null,
    origin: AuditOrigin,
    at: Date,
    passwordAt?: Date,
  ): Promise<{ token: string; session: Session } | null> {
    await this.records.deleteAllBut(userId, current ? toId(current.id) : null);
    if (!current) return null;
    return this.sessions.replace(
      current,
      origin,
      new Date(at.getTime() + 1),
      passwordAt ? 'password' : null,
      at.getTime(),
    );
  }

  /** Every session of the user, and (through `credentialsChangedAt`, set before) every token, ends: a password reset. */
  async endAll(userId: string): Promise<void> {
    await this.records.deleteAllBut(userId, null);
  }

  setCookie(request: FastifyRequest, reply: FastifyReply, continued: ContinuedSession): void {
    setSessionCookie(request, reply, continued.token, this.sessions.maxAgeSeconds, this.config.insecureHttpAllowed);
  }
}

/** Session ids here come from stored sessions: always well-formed. */
function toId(id: string): Types.ObjectId {
  return new Types.ObjectId(id);
}
