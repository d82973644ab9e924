import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { AuditOrigin } from '../../audit/audit-context.decorator';
import { MailService } from '../../mail/mail.service';
import { deviceOf } from '../../common/http/device-of';

/**
 * The mails that tell a user their account's security changed: a sign-in from an address this email
 * had never signed in from, and a second factor (an authenticator app, a passkey) added or removed.
 * They go to the account's own address so that someone else's doing is noticed; none carries a link
 * that acts. The mail service is resolved at the first notice: a command's context (`npm run
 * migrate`) holds the users module but no mail.
 */
@Injectable()
export class SecurityNotices {
  constructor(private readonly modules: ModuleRef) {}

  private get mail(): MailService {
    return this.modules.get(MailService, { strict: false });
  }

  async newSignIn(email: string, origin: AuditOrigin, at: Date): Promise<void> {
    await this.mail.send({
      to: email,
      subject: 'New sign-in to your account',
      text:
        `Your account was signed in to from an address it had not been used from before.\n\n` +
        `When: ${at.toISOString()}\nDevice: ${deviceOf(origin.userAgent) ?? 'unknown'}\nAddress: ${origin.ip ?? 'unknown'}\n\n` +
        `If this was not you, change your password now: it ends every other session.\n`,
      links: [],
    });
  }

  factorChanged(
    email: string,
    change: 'added' | 'removed',
    factor: string,
    origin: AuditOrigin,
    at: Date,
  ): Promise<void> {
    return this.send(
      email,
      change === 'added' ? 'Two-step sign-in turned on' : 'Two-step sign-in turned off',
      change,
      `A second factor (${factor})`,
      origin,
      at,
    );
  }

  /** A passkey is a second factor too, but the account may keep others: the subject names the passkey, not two-step sign-in. */
  passkeyChanged(
    email: string,
    change: 'added' | 'removed',
    name: string,
    origin: AuditOrigin,
    at: Date,
  ): Promise<void> {
    return this.send(
      email,
      change === 'added' ? 'Passkey added to your account' : 'Passkey removed from your account',
      change,
      `A passkey ("${name}")`,
      origin,
      at,
    );
  }

  private async send(
    email: string,
    subject: string,
    change: 'added' | 'removed',
    what: string,
    origin: AuditOrigin,
    at: Date,
  ): Promise<void> {
    await this.mail.send({
      to: email,
      subject,
      text:
        `${what} was ${change === 'added' ? 'added to' : 'removed from'} your account.\n\n` +
        `When: ${at.toISOString()}\nDevice: ${deviceOf(origin.userAgent) ?? 'unknown'}\nAddress: ${origin.ip ?? 'unknown'}\n\n` +
        `If this was not you, change your password now and check your second factors.\n`,
      links: [],
    });
  }
}
