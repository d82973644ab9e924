import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import * as bcrypt from 'bcrypt';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import { AttemptLimiter } from '../attempts/attempt-limiter.service';
import { authConfig } from '../../config/auth.config';
import type { Passkey } from '../passkeys/passkey.schema';
import { PasskeysService } from '../passkeys/passkeys.service';
import type { SessionFacts } from '../../tenancy/principal';
import { UsersService } from '../users/users.service';
import { MfaService } from '../factors/mfa.service';
import { SecurityNotices } from '../users/security-notices';
import type { Session } from '../../sessions/session.schema';
import { SessionsService } from '../../sessions/sessions.service';

/**
 * A user's own credentials changed through a session or a token: the password, TOTP and passkeys.
 * Each change is audited and mailed; a factor added lowers every other session to its password
 * (SessionsService.factorAdded), a factor removed or a new password ends them
 * (SessionsService.endOthers), and the session the change came through continues under a new token.
 */
@Injectable()
export class UserCredentialsService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
    private readonly attempts: AttemptLimiter,
    private readonly mfa: MfaService,
    private readonly notices: SecurityNotices,
    private readonly passkeys: PasskeysService,
    @Inject(authConfig.KEY) private readonly auth: ConfigType<typeof authConfig>,
  ) {}

  /** The options of a passkey registration: a challenge written, so limited per address as a sign-in's. */
  async passkeyRegistrationOptions(
    userId: string,
    origin: AuditOrigin,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    await this.attempts.beginPasskeyOptions(origin.ip ?? '');
    return this.passkeys.registrationOptions({ id: userId, email: user.email });
  }

  /**
   * Registers a passkey, records `passkey.added` and tells the user by mail. A factor added: see
   * `factorAdded` (the current session, which just proved it, continues as `mfa` under a new id).
   */
  async addPasskey(
    userId: string,
    current: SessionFacts | null,
    name: string,
    credential: RegistrationResponseJSON,
    origin: AuditOrigin,
  ): Promise<{ passkey: Passkey; replaced: { token: string; session: Session } | null }> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const passkey = await this.passkeys.register(userId, name, credential);
    const replaced = await this.sessions.factorAdded(userId, current, origin, new Date());
    await this.sessions.auditUser(user, 'passkey.added', origin, {
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
  async removePasskey(
    userId: string,
    current: SessionFacts | null,
    id: string,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session } | null> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const passkey = await this.passkeys.remove(userId, id);
    const at = new Date();
    await this.users.noteFactorChanged(userId, at, true);
    const replaced = await this.sessions.endOthers(userId, current, origin, at);
    await this.sessions.auditUser(user, 'passkey.removed', origin, { type: 'passkey', id, label: passkey.name });
    await this.notices.passkeyChanged(user.email, 'removed', passkey.name, origin, new Date());
    return replaced;
  }

  /**
   * A new password: every other session ends, bearer tokens issued before it stop working, and the
   * current session (if the change came through one) gets a new token made after the change.
   */
  async changePassword(
    userId: string,
    current: SessionFacts | null,
    currentPassword: string,
    password: string,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session } | null> {
    const user = await this.users.findByIdWithSecrets(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(user.email, client);
    if (!(await bcrypt.compare(currentPassword, user.passwordHash)))
      throw new UnauthorizedException('The current password is wrong');
    await this.attempts.loginSucceeded(user.email, client);
    const at = new Date();
    await this.users.setPassword(userId, await bcrypt.hash(password, this.auth.bcryptRounds), at);
    const replaced = await this.sessions.endOthers(userId, current, origin, at, at);
    await this.sessions.auditUser(user, 'password.changed', origin);
    return replaced;
  }

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
  ): Promise<{ codes: string[]; replaced: { token: string; session: Session } | null }> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const codes = await this.mfa.enable(userId, code, origin.ip ?? '');
    const replaced = await this.sessions.factorAdded(userId, current, origin, new Date());
    await this.sessions.auditUser(user, 'mfa.enabled', origin, { type: 'user', id: userId, label: 'totp' });
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
  ): Promise<{ token: string; session: Session } | null> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const at = new Date();
    await this.mfa.disable(userId, { totp: code }, origin.ip ?? '', at);
    const replaced = await this.sessions.endOthers(userId, current, origin, at);
    await this.sessions.auditUser(user, 'mfa.disabled', origin, { type: 'user', id: userId, label: 'totp' });
    await this.notices.factorChanged(user.email, 'removed', 'an authenticator app', origin, new Date());
    return replaced;
  }
}
