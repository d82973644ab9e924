import { BadRequestException, ConflictException, Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import { MailService } from '../../mail/mail.service';
import { TooManyRequestsException } from '../../common/http/too-many-requests.exception';
import type { User } from '../users/user.schema';
import { UsersService } from '../users/users.service';
import { AttemptLimiter } from '../attempts/attempt-limiter.service';
import { PasswordChanges } from '../passwords/password-changes.service';
import { UserAudit } from '../users/user-audit';
import { EmailLink, EmailLinkPurpose } from './email-link.schema';
import { EmailLinksRepository } from './email-links.repository';

const HOUR_MS = 60 * 60 * 1000;
export const RESET_VALID_MS = HOUR_MS;
export const VERIFICATION_VALID_MS = 24 * HOUR_MS;
export const LINK_INVALID = 'This link is invalid, has expired or was already used';

/** Where the dashboard takes each link (it reads `token` and posts it to the API). */
const PAGES: Record<EmailLinkPurpose, string> = {
  password_reset: '/dashboard/reset-password',
  email_verification: '/dashboard/verify-email',
};

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Links mailed to users: password resets (1 h) and email verifications (24 h). Each token is 32
 * random bytes, stored as its SHA-256 only, used once (an insert against a unique index, so two
 * concurrent uses cannot both pass on FerretDB) and expires. A reset request answers the same
 * whether the email is known or not, and does the same database work up to the mail itself.
 */
@Injectable()
export class EmailLinksService {
  constructor(
    private readonly links: EmailLinksRepository,
    private readonly users: UsersService,
    private readonly attempts: AttemptLimiter,
    private readonly mail: MailService,
    private readonly passwords: PasswordChanges,
    private readonly audit: UserAudit,
  ) {}

  /**
   * Mails a reset link when the email is a user's and neither the mailbox nor the client is past its
   * limit. The caller learns nothing either way: the answer is the same, and no error is thrown.
   */
  async requestPasswordReset(email: string, client: string, now = new Date()): Promise<void> {
    const [admitted, user] = await Promise.all([
      this.attempts.admitMail(email, client, now),
      this.users.findByEmail(email),
    ]);
    if (!admitted || !user) return;
    const token = await this.issue('password_reset', user, now);
    const link = this.mail.link(PAGES.password_reset, token);
    await this.mail.send({
      to: user.email,
      subject: 'Reset your password',
      text:
        `Someone (we hope you) asked to reset the password of ${user.email}.\n\n` +
        `Choose a new password here (the link works once, for one hour):\n${link}\n\n` +
        `Or send the token yourself: POST /api/v1/password-resets/${token} with {"password": "..."}\n\n` +
        'If you did not ask, ignore this mail: your password stays as it is.\n',
      links: [link],
    });
  }

  /**
   * Sets the password of the link's user, once; older reset links stop working. Every session of the
   * user is deleted (on every instance at once) and every token issued before fails; the second
   * factors stay, and nothing is signed in: the user signs in again, with a factor if they have one.
   */
  async resetPassword(token: string, password: string, origin: AuditOrigin, now = new Date()): Promise<void> {
    const link = await this.useLink('password_reset', token, now);
    if (!(await this.passwords.reset(String(link.userId), password, now))) throw new BadRequestException(LINK_INVALID);
    await this.links.expireOthers(String(link.userId), 'password_reset', now);
    // In every account the user belongs to: each one's admins see that a member's password changed.
    await this.audit.record({ _id: link.userId, email: link.email }, 'password.reset', origin);
  }

  /** Mails the verification link of a new user. */
  async sendVerification(user: User, now = new Date()): Promise<void> {
    const token = await this.issue('email_verification', user, now);
    const link = this.mail.link(PAGES.email_verification, token);
    await this.mail.send({
      to: user.email,
      subject: 'Verify your email address',
      text:
        `Welcome, ${user.firstName}. Confirm that ${user.email} is yours (the link works once, for 24 hours):\n${link}\n\n` +
        `Or send the token yourself: POST /api/v1/email-verifications/${token}\n\n` +
        'Until then you can sign in, but not invite members or move money.\n',
      links: [link],
    });
  }

  /** A new verification mail for the caller; 409 when already verified, 429 past the mail limits. */
  async resendVerification(userId: string, client: string, now = new Date()): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this token no longer exists');
    if (user.emailVerifiedAt !== null) throw new ConflictException('Your email address is already verified');
    if (!(await this.attempts.admitMail(user.email, client, now))) {
      throw new TooManyRequestsException('Too many verification mails asked for', this.attempts.mailWindowSeconds);
    }
    await this.sendVerification(user, now);
  }

  /** Marks the link's user verified, once. */
  async verifyEmail(token: string, now = new Date()): Promise<void> {
    const link = await this.useLink('email_verification', token, now);
    const user = await this.users.findById(String(link.userId));
    // A link mailed to an address the user no longer has proves nothing about the current one.
    if (!user || user.email !== link.email) throw new BadRequestException(LINK_INVALID);
    await this.users.markEmailVerified(String(link.userId), now);
    await this.links.expireOthers(String(link.userId), 'email_verification', now);
  }

  private async issue(purpose: EmailLinkPurpose, user: User, now: Date): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const validMs = purpose === 'password_reset' ? RESET_VALID_MS : VERIFICATION_VALID_MS;
    await this.links.insert({
      purpose,
      userId: String(user._id),
      email: user.email,
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + validMs),
    });
    return token;
  }

  /** The link of this token, used now; 400 when unknown, expired or already used. */
  private async useLink(purpose: EmailLinkPurpose, token: string, now: Date): Promise<EmailLink> {
    const link = await this.links.findByTokenHash(purpose, hashToken(token));
    if (!link || link.usedAt !== null || new Date(link.expiresAt).getTime() <= now.getTime())
      throw new BadRequestException(LINK_INVALID);
    if (!(await this.links.use(link._id, now))) throw new BadRequestException(LINK_INVALID);
    return link;
  }
}
