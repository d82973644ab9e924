import { AttemptLimiter } from '../identity/attempts/attempt-limiter.service';
import { TooManyRequestsException } from '../common/http/too-many-requests.exception';
import { Types } from 'mongoose';
import type { AuditContext } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { AccountsService } from '../accounts/accounts.service';
import { AccountView } from '../accounts/dto/account.response';
import { MembershipsService } from '../accounts/memberships.service';
import { UsersService } from '../identity/users/users.service';
import { MailService } from '../mail/mail.service';
import { CreatedInvitationView, CreateInvitationDto, InvitationView } from './dto/invitation.dto';
import { Invitation } from './invitation.schema';
import { InvitationsRepository } from './invitations.repository';

export const INVITATION_INVALID = 'Invitation is invalid or has expired';
export const INVITATION_OTHER_EMAIL = 'This invitation is for another email address';
const INVITATION_NOT_FOUND = 'Invitation not found';
const VALID_FOR_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_PREFIX = 'inv_';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function toInvitationView(invitation: Invitation): InvitationView {
  return {
    id: String(invitation._id),
    email: invitation.email,
    role: invitation.role,
    status: invitation.status,
    expiresAt: new Date(invitation.expiresAt).toISOString(),
    createdAt: new Date(invitation.createdAt).toISOString(),
  };
}

/** Invitations into an account: created by an admin, shown once, accepted once by the invited email. */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly accounts: AccountsService,
    private readonly memberships: MembershipsService,
    private readonly users: UsersService,
    private readonly trail: AuditTrail,
    private readonly mail: MailService,
    private readonly attempts: AttemptLimiter,
  ) {}

  /** A new pending invitation; a pending one for the same email is replaced (revoked). */
  async create(
    audit: AuditContext,
    accountId: string,
    callerId: string,
    dto: CreateInvitationDto,
    now = new Date(),
  ): Promise<CreatedInvitationView> {
    const { account } = await this.accounts.requireAdmin(accountId, callerId);
    const email = dto.email.toLowerCase();
    const invited = await this.users.findByEmail(email);
    if (invited && (await this.memberships.find(accountId, String(invited._id)))) {
      throw new ConflictException('This user is already a member of the account');
    }
    if (!(await this.attempts.admitMailTo(email, now))) {
      throw new TooManyRequestsException(
        'Too many mails were sent to this email lately; invite it again later',
        this.attempts.mailWindowSeconds,
      );
    }
    // Replaced: revoked, each with its entry, as an admin's revocation is.
    for (const pending of await this.invitations.pendingFor(accountId, email))
      await this.revokeOne(audit, accountId, String(pending._id), email);
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const _id = new Types.ObjectId();
    const created = await this.trail.record(
      audit,
      {
        accountId,
        action: 'member.invited',
        target: { type: 'invitation', id: String(_id), label: email },
        changes: { role: [null, dto.role] },
      },
      { collection: 'invitations', id: String(_id), exists: true },
      () =>
        this.invitations.insert({
          _id,
          accountId,
          email,
          role: dto.role,
          tokenHash: hashToken(token),
          expiresAt: new Date(now.getTime() + VALID_FOR_MS),
          invitedBy: callerId,
        }),
    );
    await this.mailInvitation(email, token, Boolean(invited), account.name);
    return { ...toInvitationView(created), token };
  }

  /** The link takes the invitee to the dashboard, which signs them up (or in, to accept) with the token. */
  private async mailInvitation(email: string, token: string, hasLogin: boolean, accountName: string): Promise<void> {
    const link = this.mail.link('/dashboard/invitation', token);
    const how = hasLogin
      ? `Sign in, then accept it: POST /api/v1/invitations/accept with {"token": "${token}"}`
      : `Sign up with it: POST /api/v1/signup with your details and "invitationToken": "${token}"`;
    await this.mail.send({
      to: email,
      subject: `You are invited to join ${accountName}`,
      text: `You are invited to join ${accountName}. Accept here (the link works once, for 7 days):\n${link}\n\nOr by hand. ${how}\n`,
      links: [link],
    });
  }

  /** Pending invitations that have not expired; the token is never shown again. */
  async listPending(accountId: string, callerId: string, now = new Date()): Promise<InvitationView[]> {
    await this.accounts.requireAdmin(accountId, callerId);
    const rows = await this.invitations.listPending(accountId, now);
    return rows.map(toInvitationView);
  }

  async revoke(audit: AuditContext, accountId: string, callerId: string, invitationId: string): Promise<void> {
    await this.accounts.requireAdmin(accountId, callerId);
    if (!(await this.revokeOne(audit, accountId, invitationId, null)))
      throw new NotFoundException(INVITATION_NOT_FOUND);
  }

  private revokeOne(
    audit: AuditContext,
    accountId: string,
    invitationId: string,
    email: string | null,
  ): Promise<boolean> {
    return this.trail.record(
      audit,
      { accountId, action: 'invitation.revoked', target: { type: 'invitation', id: invitationId, label: email } },
      { collection: 'invitations', id: invitationId, fields: { status: 'revoked' } },
      () => this.invitations.revokePending(accountId, invitationId),
    );
  }

  /**
   * The pending, unexpired invitation of this token, checked against the email that will use it.
   * Read-only: signup checks it before creating the user.
   */
  async check(token: string, email: string, now = new Date()): Promise<Invitation> {
    const invitation = await this.invitations.findByTokenHash(hashToken(token));
    if (!invitation || invitation.status !== 'pending' || new Date(invitation.expiresAt).getTime() <= now.getTime()) {
      throw new BadRequestException(INVITATION_INVALID);
    }
    if (invitation.email !== email.trim().toLowerCase()) throw new ForbiddenException(INVITATION_OTHER_EMAIL);
    return invitation;
  }

  /** A logged-in user accepts: the invitation must be for their email. */
  async accept(audit: AuditContext, token: string, userId: string, now = new Date()): Promise<AccountView> {
    const invitation = await this.check(token, await this.users.emailOf(userId), now);
    return this.join(audit, invitation, userId);
  }

  /**
   * Joins the invitation's account. Single use: the invitation moves from pending to accepted, and
   * the membership's unique (account, user) index stops a second join even if two accepts race
   * (only the invited email can accept, and emails are unique).
   */
  async join(audit: AuditContext, invitation: Invitation, userId: string): Promise<AccountView> {
    const accountId = String(invitation.accountId);
    if (await this.memberships.find(accountId, userId))
      throw new ConflictException('You are already a member of this account');
    if (!(await this.invitations.claim(invitation._id, userId))) throw new BadRequestException(INVITATION_INVALID);
    // The membership's id is chosen first: the entry stands when, and only when, it exists.
    const membershipId = new Types.ObjectId();
    await this.trail.record(
      audit,
      {
        accountId,
        action: 'member.joined',
        target: { type: 'user', id: userId, label: invitation.email },
        changes: { role: [null, invitation.role] },
      },
      { collection: 'memberships', id: String(membershipId), exists: true },
      () => this.memberships.add(accountId, userId, invitation.role, false, membershipId),
    );
    return this.accounts.get(accountId, userId);
  }
}
