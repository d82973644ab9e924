import { Injectable, UnauthorizedException } from '@nestjs/common';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import type { SessionFacts } from '../../tenancy/principal';
import { AttemptLimiter } from '../attempts/attempt-limiter.service';
import { SecurityNotices } from '../users/security-notices';
import { UserAudit } from '../users/user-audit';
import { type ContinuedSession, UserSessionsRef } from '../users/users.ports';
import { UsersService } from '../users/users.service';
import type { Passkey } from './passkey.schema';
import { PasskeysService } from './passkeys.service';

/**
 * A user's passkeys registered or removed through a session or a token. Each change is audited and
 * mailed; a passkey added lowers every other session to its password, one removed ends them
 * (through the sessions module's `UserSessions`), and the session the change came through continues
 * under a new token.
 */
@Injectable()
export class PasskeyChanges {
  constructor(
    private readonly users: UsersService,
    private readonly passkeys: PasskeysService,
    private readonly attempts: AttemptLimiter,
    private readonly notices: SecurityNotices,
    private readonly audit: UserAudit,
    private readonly sessions: UserSessionsRef,
  ) {}

  /** The options of a passkey registration: a challenge written, so limited per address as a sign-in's. */
  async registrationOptions(userId: string, origin: AuditOrigin): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    await this.attempts.beginPasskeyOptions(origin.ip ?? '');
    return this.passkeys.registrationOptions({ id: userId, email: user.email });
  }

  /**
   * Registers a passkey, records `passkey.added` and tells the user by mail. A factor added: the
   * user's other sessions and tokens count as password-only; the current session, which just proved
   * it, continues as `mfa` under a new id.
   */
  async add(
    userId: string,
    current: SessionFacts | null,
    name: string,
    credential: RegistrationResponseJSON,
    origin: AuditOrigin,
  ): Promise<{ passkey: Passkey; replaced: ContinuedSession | null }> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const passkey = await this.passkeys.register(userId, name, credential);
    const at = new Date();
    await this.users.noteFactorChanged(userId, at, false);
    const replaced = await this.sessions.get().factorAdded(userId, current, origin, at);
    await this.audit.record(user, 'passkey.added', origin, {
      type: 'passkey',
      id: String(passkey._id),
      label: passkey.name,
    });
    await this.notices.passkeyChanged(user.email, 'added', passkey.name, origin, new Date());
    return { passkey, replaced };
  }

  /**
   * Removes one of the user's passkeys (another user's: 404), records `passkey.removed` and tells the
   * user by mail. A factor removed ends every other session and every token, as a new password does;
   * the current session (if the removal came through one) continues under a new id.
   */
  async remove(
    userId: string,
    current: SessionFacts | null,
    id: string,
    origin: AuditOrigin,
  ): Promise<ContinuedSession | null> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const passkey = await this.passkeys.remove(userId, id);
    const at = new Date();
    await this.users.noteFactorChanged(userId, at, true);
    const replaced = await this.sessions.get().credentialsChanged(userId, current, origin, at);
    await this.audit.record(user, 'passkey.removed', origin, { type: 'passkey', id, label: passkey.name });
    await this.notices.passkeyChanged(user.email, 'removed', passkey.name, origin, new Date());
    return replaced;
  }
}
