import { Injectable, UnauthorizedException } from '@nestjs/common';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import type { SessionFacts } from '../../tenancy/principal';
import { SecurityNotices } from '../users/security-notices';
import { UserAudit } from '../users/user-audit';
import { type ContinuedSession, UserSessionsRef } from '../users/users.ports';
import { UsersService } from '../users/users.service';
import { MfaService } from './mfa.service';

/**
 * TOTP turned on or off through a session or a token. Each change is audited and mailed; a factor
 * added lowers every other session to its password, a factor removed ends them (through the
 * sessions module's `UserSessions`), and the session the change came through continues under a new
 * token.
 */
@Injectable()
export class FactorChanges {
  constructor(
    private readonly users: UsersService,
    private readonly mfa: MfaService,
    private readonly notices: SecurityNotices,
    private readonly audit: UserAudit,
    private readonly sessions: UserSessionsRef,
  ) {}

  /**
   * Turns TOTP on with a code of the enrolled secret, under the user's code limit; the recovery
   * codes. A factor added: the user's other sessions and tokens no longer count as having proven
   * their factors.
   */
  async enableTotp(
    userId: string,
    current: SessionFacts | null,
    code: string,
    origin: AuditOrigin,
  ): Promise<{ codes: string[]; replaced: ContinuedSession | null }> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const codes = await this.mfa.enable(userId, code, origin.ip ?? '');
    const at = new Date();
    await this.users.noteFactorChanged(userId, at, false);
    const replaced = await this.sessions.get().factorAdded(userId, current, origin, at);
    await this.audit.record(user, 'mfa.enabled', origin, { type: 'user', id: userId, label: 'totp' });
    await this.notices.factorChanged(user.email, 'added', 'an authenticator app', origin, new Date());
    return { codes, replaced };
  }

  /**
   * Turns TOTP off with a fresh code, under the user's code limit. A factor removed ends every other
   * session and every token; the current session continues under a new id.
   */
  async disableTotp(
    userId: string,
    current: SessionFacts | null,
    code: string,
    origin: AuditOrigin,
  ): Promise<ContinuedSession | null> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const at = new Date();
    await this.mfa.disable(userId, { totp: code }, origin.ip ?? '', at);
    const replaced = await this.sessions.get().credentialsChanged(userId, current, origin, at);
    await this.audit.record(user, 'mfa.disabled', origin, { type: 'user', id: userId, label: 'totp' });
    await this.notices.factorChanged(user.email, 'removed', 'an authenticator app', origin, new Date());
    return replaced;
  }
}
