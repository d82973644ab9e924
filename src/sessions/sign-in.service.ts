import { ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { NOT_A_MEMBER } from '../access/policy/access-messages';
import { MembershipsService } from '../accounts/memberships.service';
import type { AuditOrigin } from '../audit/audit-context.decorator';
import { AttemptLimiter } from '../identity/attempts/attempt-limiter.service';
import { PasskeysService } from '../identity/passkeys/passkeys.service';
import { CredentialsCheck, type PasswordProof } from '../identity/passwords/credentials-check';
import { credentialsVersionOf } from '../identity/users/credentials-changes';
import { UserAudit } from '../identity/users/user-audit';
import type { User } from '../identity/users/user.schema';
import { UsersService } from '../identity/users/users.service';
import type { Session } from './session.schema';
import { SessionsService } from './sessions.service';

export interface SignIn extends PasswordProof {
  accountId?: string;
}

/**
 * Signing in: a session opened from what the identity modules proved, a password (with a code, for
 * a user with a second factor: CredentialsCheck, the same check as an access token's login) or a
 * passkey, under the login attempt limits. Every success clears the pair's failed logins and mails
 * a new-sign-in notice from an address new for the email (CredentialsCheck.signedIn).
 */
@Injectable()
export class SignInService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
    private readonly memberships: MembershipsService,
    private readonly attempts: AttemptLimiter,
    private readonly credentials: CredentialsCheck,
    private readonly passkeys: PasskeysService,
    private readonly audit: UserAudit,
  ) {}

  /**
   * Checks the password (and, for a user with a factor, the code) under the login attempt limits,
   * and opens a session. Unknown email and wrong password answer alike, after the same bcrypt work.
   */
  async signIn(dto: SignIn, origin: AuditOrigin): Promise<{ token: string; session: Session; user: User }> {
    const { user, assurance, credentialsAt } = await this.credentials.verifyCredentials(dto, origin);
    const userId = String(user._id);
    const accountId = await this.sessionAccount(user, dto.accountId?.toLowerCase());
    const now = await this.credentials.signedIn(user, origin);
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
    await this.audit.record(user, 'user.logged_in', origin);
    return { token, session, user };
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
        this.audit.recordInBackground(named.user, 'user.login_failed', origin);
      throw error;
    }
    const user = named.user;
    if (!user) throw new UnauthorizedException('The user of this passkey no longer exists');
    const userId = String(user._id);
    const account = await this.sessionAccount(user, accountId?.toLowerCase());
    await this.attempts.passkeyAnswerSucceeded(client);
    const now = await this.credentials.signedIn(user, origin);
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
    await this.audit.record(user, 'user.logged_in', origin);
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
}
