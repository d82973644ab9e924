import { Injectable, UnauthorizedException } from '@nestjs/common';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import { AttemptLimiter } from '../attempts/attempt-limiter.service';
import { assertOneProof, INVALID_CODE, MFA_REQUIRED, MfaService } from '../factors/mfa.service';
import { credentialsVersionOf } from '../users/credentials-changes';
import { SecurityNotices } from '../users/security-notices';
import { UserAudit } from '../users/user-audit';
import type { User } from '../users/user.schema';
import { UsersService } from '../users/users.service';
import { PasswordHasher } from './password-hasher';

const INVALID_CREDENTIALS = 'Invalid email or password';

/** What a password sign-in offers: the email and password, and a code for a user with a second factor. */
export interface PasswordProof {
  email: string;
  password: string;
  totp?: string;
  recoveryCode?: string;
}

/**
 * The check of a password sign-in, shared by the dashboard session (src/sessions) and the access
 * token (src/auth), so both give the same strength; and what every successful sign-in does (the
 * pair's failed logins forgotten, the new-sign-in mail from an address new for the email).
 */
@Injectable()
export class CredentialsCheck {
  constructor(
    private readonly users: UsersService,
    private readonly attempts: AttemptLimiter,
    private readonly mfa: MfaService,
    private readonly notices: SecurityNotices,
    private readonly audit: UserAudit,
    private readonly hasher: PasswordHasher,
  ) {}

  /**
   * The one check of an email, a password and (for a user with a second factor) a code, shared by
   * every password sign-in (a session here, an access token at `POST /api/v1/login`), so both give
   * the same strength: a user with a factor gets nothing from the password alone (401
   * `mfa_required`). A member of an account that requires a factor but has none yet is let in with
   * `password`, which the tenancy guard then keeps out of that account's data (they can set one up).
   * Under the login limits (the password) and the user's code limit (the code). Unknown email and
   * wrong password answer alike, after the same bcrypt work.
   */
  async verifyCredentials(
    dto: PasswordProof,
    origin: AuditOrigin,
  ): Promise<{ user: User; assurance: 'password' | 'mfa'; credentialsAt: number }> {
    assertOneProof(dto);
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(dto.email, client);
    const found = await this.users.findByEmailWithHash(dto.email);
    const matches = await this.hasher.matches(dto.password, found?.passwordHash);
    if (!found || !matches) {
      // Not awaited: a known email must not answer later than an unknown one.
      if (found) this.audit.recordInBackground(found, 'user.login_failed', origin);
      throw new UnauthorizedException(INVALID_CREDENTIALS);
    }
    // The factor's secrets are read only for a user who has one (most have none).
    // The credentials as read with the password checked: what the token or session is bound to.
    const credentialsAt = credentialsVersionOf(found);
    if (!(await this.mfa.hasFactor(found))) return { user: found, assurance: 'password', credentialsAt };
    if (dto.totp === undefined && dto.recoveryCode === undefined) {
      throw new UnauthorizedException({
        message:
          'This user has a second factor: send totp or recoveryCode with the password, or sign in with a passkey (POST /api/v1/sessions/passkey)',
        code: MFA_REQUIRED,
      });
    }
    const user = await this.users.findByIdWithSecrets(String(found._id));
    if (!user || !(await this.mfa.accept(user, dto, client))) {
      this.audit.recordInBackground(found, 'user.login_failed', origin);
      throw new UnauthorizedException(INVALID_CODE);
    }
    return { user, assurance: 'mfa', credentialsAt };
  }

  /**
   * A sign-in succeeded (any path: password, password and code, passkey; session or token): the
   * pair's failed logins no longer count, and an address new for this email gets the new-sign-in
   * mail. When it happened.
   */
  async signedIn(user: User, origin: AuditOrigin): Promise<Date> {
    const newAddress = await this.attempts.loginSucceeded(user.email, origin.ip ?? '');
    const now = new Date();
    if (newAddress) await this.notices.newSignIn(user.email, origin, now);
    return now;
  }
}
