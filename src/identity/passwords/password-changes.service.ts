import { Injectable, UnauthorizedException } from '@nestjs/common';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import type { SessionFacts } from '../../tenancy/principal';
import { AttemptLimiter } from '../attempts/attempt-limiter.service';
import { UserAudit } from '../users/user-audit';
import { type ContinuedSession, UserSessionsRef } from '../users/users.ports';
import { UsersService } from '../users/users.service';
import { PasswordHasher } from './password-hasher';

/**
 * A user's password changed (through a session or a token, proving the current one) or reset
 * (through a mailed link, src/identity/email-links). Either moves the user's credentials version,
 * so every token issued before fails; the sessions it ends through the sessions module's
 * `UserSessions`.
 */
@Injectable()
export class PasswordChanges {
  constructor(
    private readonly users: UsersService,
    private readonly attempts: AttemptLimiter,
    private readonly hasher: PasswordHasher,
    private readonly audit: UserAudit,
    private readonly sessions: UserSessionsRef,
  ) {}

  /**
   * A new password: every other session ends, bearer tokens issued before it stop working, and the
   * current session (if the change came through one) gets a new token made after the change.
   */
  async change(
    userId: string,
    current: SessionFacts | null,
    currentPassword: string,
    password: string,
    origin: AuditOrigin,
  ): Promise<ContinuedSession | null> {
    const user = await this.users.findByIdWithSecrets(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(user.email, client);
    if (!(await this.hasher.matches(currentPassword, user.passwordHash)))
      throw new UnauthorizedException('The current password is wrong');
    await this.attempts.loginSucceeded(user.email, client);
    const at = new Date();
    await this.users.setPassword(userId, await this.hasher.hash(password), at);
    const replaced = await this.sessions.get().credentialsChanged(userId, current, origin, at, at);
    await this.audit.record(user, 'password.changed', origin);
    return replaced;
  }

  /**
   * A reset: the new password set at `now` and every session of the user ended (on every instance
   * at once); false when the user is gone. The second factors stay, and nothing is signed in.
   */
  async reset(userId: string, password: string, now: Date): Promise<boolean> {
    if (!(await this.users.setPassword(userId, await this.hasher.hash(password), now))) return false;
    await this.sessions.get().endAll(userId);
    return true;
  }
}
