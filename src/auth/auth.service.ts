import type { AuditOrigin } from '../audit/audit-context.decorator';
import type { AuditContext } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { AccountView } from '../accounts/dto/account.response';
import { MembershipsService } from '../accounts/memberships.service';
import { toAddress } from '../common/dto/address.dto';
import { Invitation } from '../invitations/invitation.schema';
import { InvitationsService } from '../invitations/invitations.service';
import type { Principal } from '../tenancy/principal';
import { NOT_A_MEMBER } from '../access/policy/access-messages';
import type { User } from '../identity/users/user.schema';
import { toUserResponse } from '../identity/users/users.mapper';
import { UsersService } from '../identity/users/users.service';
import { LoginResponse, MeResponse, SignupResponse } from './dto/auth.response';
import { LoginDto } from './dto/login.dto';
import { SignupDto } from './dto/signup.dto';
import type { AccessTokenClaims } from '../access/tokens/access-token';
import { AccessTokens } from '../access/tokens/access-tokens';
import { AttemptLimiter } from '../identity/attempts/attempt-limiter.service';
import { EmailLinksService } from '../identity/email-links/email-links.service';
import { CredentialsCheck } from '../identity/passwords/credentials-check';
import { PasswordHasher } from '../identity/passwords/password-hasher';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly accounts: AccountsService,
    private readonly memberships: MembershipsService,
    private readonly invitations: InvitationsService,
    private readonly tokens: AccessTokens,
    private readonly attempts: AttemptLimiter,
    private readonly trail: AuditTrail,
    private readonly emailLinks: EmailLinksService,
    private readonly credentials: CredentialsCheck,
    private readonly hasher: PasswordHasher,
  ) {}

  /**
   * Without an invitation: the user, a new account they own (with its default project) and their
   * membership with the role they asked for. With one: the user joins the inviting account. The
   * invitation is checked before anything is written. A refused signup (4xx) leaves the client's
   * signup limit as it was (see AttemptLimiter).
   */
  async signup(
    dto: SignupDto,
    client: string,
    origin: AuditOrigin = { ip: client, userAgent: null, requestId: null },
  ): Promise<SignupResponse> {
    const attempt = await this.attempts.beginSignup(client);
    try {
      return await this.createSignedUp(dto, origin);
    } catch (error) {
      if (error instanceof HttpException && error.getStatus() < 500) await this.attempts.signupRefused(attempt);
      throw error;
    }
  }

  private async createSignedUp(dto: SignupDto, origin: AuditOrigin): Promise<SignupResponse> {
    const invitation = dto.invitationToken ? await this.checkInvitation(dto, dto.invitationToken) : null;
    const role = invitation?.role ?? dto.role!;
    const passwordHash = await this.hasher.hash(dto.password);
    const user = await this.users.create({
      firstName: dto.firstName,
      lastName: dto.lastName,
      email: dto.email,
      passwordHash,
      role,
      phoneNumber: dto.phoneNumber,
      address: dto.address && toAddress(dto.address),
      avatar: dto.avatar,
    });
    const userId = String(user._id);
    const audit = { actor: { type: 'user', id: userId, label: user.email }, ...origin };
    const account = invitation
      ? await this.joinOrUndo(audit, invitation, userId)
      : await this.accounts.create(
          audit,
          userId,
          dto.accountName ?? `${user.firstName} ${user.lastName}`,
          dto.accountType ?? 'developer',
          role,
        );
    const updated = (await this.users.setDefaultCompany(userId, account.id)) ?? user;
    await this.emailLinks.sendVerification(updated);
    return { message: 'User created', data: { user: toUserResponse(updated, account.role), account } };
  }

  /**
   * The same check as a dashboard sign-in (CredentialsCheck.verifyCredentials): a user with a second
   * factor gets no token from the password alone (401 `mfa_required`), and the token carries the
   * assurance the sign-in proved. A login into an account is in that account's audit log
   * (`user.logged_in`): the token is issued once it is.
   */
  async login(
    dto: LoginDto,
    client: string,
    userAgent: string | null = null,
    requestId: string | null = null,
  ): Promise<LoginResponse> {
    const origin: AuditOrigin = { ip: client, userAgent: userAgent?.slice(0, 256) ?? null, requestId };
    const { user, assurance, credentialsAt } = await this.credentials.verifyCredentials(dto, origin);
    const account = await this.loginAccount(user, dto.accountId?.toLowerCase());
    const issuedAt = await this.credentials.signedIn(user, origin);
    const claims: AccessTokenClaims = {
      sub: String(user._id),
      acc: account?.id ?? null,
      asr: assurance,
      ims: issuedAt.getTime(),
      cav: credentialsAt,
    };
    if (account) {
      const party = { type: 'user', id: String(user._id), label: user.email };
      await this.trail.appendNow(
        { actor: party, ...origin },
        { accountId: account.id, action: 'user.logged_in', target: party },
      );
    }
    return {
      message: 'Login successful',
      accessToken: await this.tokens.issue(claims),
      data: { user: toUserResponse(user, account?.role), account },
    };
  }

  async me(caller: Principal): Promise<MeResponse> {
    if (caller.kind !== 'user') throw new ForbiddenException('API keys cannot manage the platform');
    const user = await this.users.findById(caller.userId);
    if (!user) throw new UnauthorizedException('The user of this token no longer exists');
    const memberships = await this.accounts.listForUser(caller.userId);
    const account = memberships.find((view) => view.id === caller.accountId) ?? null;
    return { data: { user: toUserResponse(user, account?.role), account, memberships } };
  }

  /**
   * The account a login acts in: the one asked for (the user must be a member), else their
   * defaultCompany while they still belong to it, else the account they joined first, else none.
   */
  private async loginAccount(user: User, accountId: string | undefined): Promise<AccountView | null> {
    const userId = String(user._id);
    if (accountId) {
      const view = await this.accounts.view(accountId, userId);
      if (!view) throw new ForbiddenException(NOT_A_MEMBER);
      return view;
    }
    if (user.defaultCompany) {
      const view = await this.accounts.view(user.defaultCompany, userId);
      if (view) return view;
    }
    const [first] = await this.memberships.listForUser(userId);
    return first ? this.accounts.view(String(first.accountId), userId) : null;
  }

  /**
   * The invitation was checked before the user was written, but it may have been revoked, replaced
   * or used in between: then the new user is removed again, so the refused signup leaves no login
   * behind and the same email can sign up with a fresh invitation.
   */
  private async joinOrUndo(audit: AuditContext, invitation: Invitation, userId: string): Promise<AccountView> {
    try {
      return await this.invitations.join(audit, invitation, userId);
    } catch (error) {
      // Only while nothing points at the user: a membership written before a later failure keeps it.
      if (!(await this.memberships.find(String(invitation.accountId), userId))) await this.users.remove(userId);
      throw error;
    }
  }

  private async checkInvitation(dto: SignupDto, token: string): Promise<Invitation> {
    if (dto.accountType !== undefined || dto.accountName !== undefined) {
      throw new BadRequestException(
        'accountType and accountName cannot be given with an invitationToken: the account is the inviting one',
      );
    }
    const invitation = await this.invitations.check(token, dto.email);
    if (dto.role !== undefined && dto.role !== invitation.role) {
      throw new BadRequestException(`role must be left out or equal the invitation's role (${invitation.role})`);
    }
    return invitation;
  }
}
