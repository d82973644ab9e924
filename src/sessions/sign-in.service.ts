import { ForbiddenException, Inject, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import * as bcrypt from 'bcrypt';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { NOT_A_MEMBER } from '../access/policy/access-messages';
import { MembershipsService } from '../accounts/memberships.service';
import type { AuditOrigin } from '../audit/audit-context.decorator';
import type { AuditAction } from '../audit/audit-entry.schema';
import { AttemptLimiter } from '../identity/attempts/attempt-limiter.service';
import { authConfig } from '../config/auth.config';
import { PasskeysService } from '../identity/passkeys/passkeys.service';
import type { User } from '../identity/users/user.schema';
import { UsersService } from '../identity/users/users.service';
import { assertOneProof, INVALID_CODE, MfaService } from '../identity/factors/mfa.service';
import { SecurityNotices } from '../identity/users/security-notices';
import type { Assurance, Session } from './session.schema';
import { credentialsVersionOf, SessionsService } from './sessions.service';

const INVALID_CREDENTIALS = 'Invalid email or password';
export const MFA_REQUIRED = 'mfa_required';

export interface SignIn {
  email: string;
  password: string;
  totp?: string;
  recoveryCode?: string;
  accountId?: string;
}

/**
 * Signing in: a password (with a code, for a user with a second factor) or a passkey, under the
 * login attempt limits, to a dashboard session; the same check of the password and the code for
 * an access token (AuthService). Every success clears the pair's failed logins and mails a
 * new-sign-in notice from an address new for the email.
 */
@Injectable()
export class SignInService {
  private readonly logger = new Logger(SignInService.name);
  private readonly dummyHash: Promise<string>;

  constructor(
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
    private readonly memberships: MembershipsService,
    private readonly attempts: AttemptLimiter,
    private readonly mfa: MfaService,
    private readonly notices: SecurityNotices,
    private readonly passkeys: PasskeysService,
    @Inject(authConfig.KEY) auth: ConfigType<typeof authConfig>,
  ) {
    this.dummyHash = bcrypt.hash('not-a-real-password', auth.bcryptRounds);
  }

  /**
   * Checks the password (and, for a user with a factor, the code) under the login attempt limits,
   * and opens a session. Unknown email and wrong password answer alike, after the same bcrypt work.
   */
  async signIn(dto: SignIn, origin: AuditOrigin): Promise<{ token: string; session: Session; user: User }> {
    const { user, assurance, credentialsAt } = await this.verifyCredentials(dto, origin);
    const userId = String(user._id);
    const accountId = await this.sessionAccount(user, dto.accountId?.toLowerCase());
    const now = await this.signedIn(user, origin);
    const { token, session } = await this.sessions.open(
      userId,
      accountId,
      assurance,
      origin,
      now,
      now,
      assurance === 'mfa' ? now : null,
      now,
      credentialsAt,
    );
    await this.sessions.auditUser(user, 'user.logged_in', origin);
    return { token, session, user };
  }

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
    dto: SignIn,
    origin: AuditOrigin,
  ): Promise<{ user: User; assurance: Assurance; credentialsAt: number }> {
    assertOneProof(dto);
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(dto.email, client);
    const found = await this.users.findByEmailWithHash(dto.email);
    const matches = await bcrypt.compare(dto.password, found?.passwordHash ?? (await this.dummyHash));
    if (!found || !matches) {
      // Not awaited: a known email must not answer later than an unknown one.
      if (found) this.auditInBackground(found, 'user.login_failed', origin);
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
      this.auditInBackground(found, 'user.login_failed', origin);
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

  /**
   * Signs in with a passkey alone (it names its user; the user was verified by the authenticator):
   * a session with assurance `mfa`, as a password and a code would give. Under the login limits of
   * the address alone, recorded before it is verified (never of the email of the user its passkey
   * names: neither a stranger's refused answers nor the email's failed passwords lock the passkey
   * out); a success forgets them and the pair's failures. A refusal is `user.login_failed` of the
   * user named, as a wrong password is.
   */
  async signInWithPasskey(
    credential: AuthenticationResponseJSON,
    accountId: string | undefined,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session; user: User }> {
    const client = origin.ip ?? '';
    const named: { user: User | null } = { user: null };
    try {
      await this.passkeys.authenticate(credential, {
        admit: async (owner) => {
          named.user = owner ? await this.users.findById(owner) : null;
          await this.attempts.beginPasskeyAnswer(client);
        },
      });
    } catch (error) {
      if (named.user && error instanceof UnauthorizedException)
        this.auditInBackground(named.user, 'user.login_failed', origin);
      throw error;
    }
    const user = named.user;
    if (!user) throw new UnauthorizedException('The user of this passkey no longer exists');
    const userId = String(user._id);
    const account = await this.sessionAccount(user, accountId?.toLowerCase());
    await this.attempts.passkeyAnswerSucceeded(client);
    const now = await this.signedIn(user, origin);
    const { token, session } = await this.sessions.open(
      userId,
      account,
      'mfa',
      origin,
      now,
      now,
      now,
      null,
      credentialsVersionOf(user),
    );
    await this.sessions.auditUser(user, 'user.logged_in', origin);
    return { token, session, user };
  }

  /** The options of a passkey sign-in or step-up: a challenge written, so limited per address. */
  async passkeyAuthenticationOptions(origin: AuditOrigin): Promise<PublicKeyCredentialRequestOptionsJSON> {
    await this.attempts.beginPasskeyOptions(origin.ip ?? '');
    return this.passkeys.authenticationOptions();
  }

  /** As a login: the account asked for (a member only), else the default one while a member, else the first. */
  private async sessionAccount(user: User, accountId: string | undefined): Promise<string | null> {
    const userId = String(user._id);
    if (accountId) {
      if (!(await this.memberships.find(accountId, userId))) throw new ForbiddenException(NOT_A_MEMBER);
      return accountId;
    }
    if (user.defaultCompany && (await this.memberships.find(user.defaultCompany, userId))) return user.defaultCompany;
    const [first] = await this.memberships.listForUser(userId);
    return first ? String(first.accountId) : null;
  }

  private auditInBackground(user: User, action: AuditAction, origin: AuditOrigin): void {
    this.sessions
      .auditUser(user, action, origin)
      .catch((error: Error) => this.logger.warn(`Recording ${action} failed: ${error.message}`));
  }
}
