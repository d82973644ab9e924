import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import { LazyLibrary } from '../common/lazy/lazy-library';
import { mailConfig } from '../config/mail.config';

/** Loaded by the first mail an instance sends; with SMTP_URL its installed check is at start. */
const nodemailer = new LazyLibrary<typeof import('nodemailer')>('nodemailer');

export interface Mail {
  to: string;
  subject: string;
  /** Plain text; every link in it is written out whole. */
  text: string;
  /** The links the mail carries, logged in development when mails go to files. */
  links: string[];
}

/**
 * Hands one mail to SMTP (`SMTP_URL`, nodemailer) when set, else (development and tests; production
 * refuses to start without it) writes it as an `.eml` file under `DATA_DIR/mail/`, its links logged.
 * An SMTP exchange is bounded (connection, greeting and idle timeouts), so an attempt ends well
 * within the claim MailService holds on its record.
 */
@Injectable()
export class MailTransport {
  private readonly logger = new Logger('MailService');
  private made?: Transporter;

  constructor(@Inject(mailConfig.KEY) private readonly config: ConfigType<typeof mailConfig>) {
    if (config.smtpUrl) nodemailer.assertInstalled();
  }

  private get transport(): Transporter {
    const { createTransport } = nodemailer.load();
    this.made ??= this.config.smtpUrl
      ? createTransport({
          url: this.config.smtpUrl,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        })
      : createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
    return this.made;
  }

  /** The mail, sent now; `messageId` lets a receiver recognise a mail sent twice. */
  async deliver(mail: Mail, messageId?: string): Promise<void> {
    const message = {
      from: this.config.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(messageId ? { messageId } : {}),
    };
    if (this.config.smtpUrl) {
      await this.transport.sendMail(message);
      return;
    }
    const info = (await this.transport.sendMail(message)) as { message: Buffer };
    await mkdir(this.config.directory, { recursive: true });
    const file = join(
      this.config.directory,
      `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`,
    );
    await writeFile(file, info.message, { mode: 0o600 });
    this.logger.log(
      `Mail "${mail.subject}" to ${mail.to} written to ${file} (no SMTP_URL)${mail.links.length ? `: ${mail.links.join(' ')}` : ''}`,
    );
  }

  /** Closes SMTP connections (MailService does, once no attempt is under way). */
  close(): void {
    this.made?.close();
  }
}
