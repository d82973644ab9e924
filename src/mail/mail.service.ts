import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import { mailConfig } from '../config/mail.config';

export interface Mail {
  to: string;
  subject: string;
  /** Plain text; every link in it is written out whole. */
  text: string;
  /** The links the mail carries, logged in development when mails go to files. */
  links: string[];
}

/**
 * Sends the service's mail: through SMTP (`SMTP_URL`, nodemailer) when set, else (development and
 * tests; production refuses to start without it) as `.eml` files under `DATA_DIR/mail/`, their links
 * logged. `send` returns at once: the mail goes off the request's path, and a failure is logged with
 * its recipient (never lost silently). A stop waits for the mails still on their way.
 */
@Injectable()
export class MailService implements OnApplicationShutdown {
  private readonly logger = new Logger(MailService.name);
  private readonly transport: Transporter;
  private inFlight = 0;
  private drained: (() => void) | null = null;

  constructor(@Inject(mailConfig.KEY) private readonly config: ConfigType<typeof mailConfig>) {
    this.transport = config.smtpUrl
      ? createTransport(config.smtpUrl)
      : createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  }

  /** Queues the mail; the answer does not wait for it. */
  send(mail: Mail): void {
    this.inFlight += 1;
    void this.deliver(mail)
      .catch((error: unknown) => {
        this.logger.error(`Mail "${mail.subject}" to ${mail.to} was not sent: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.drained?.();
      });
  }

  /** The mail, sent now (the answer waits): for callers that must know it left. */
  async deliver(mail: Mail): Promise<void> {
    const message = { from: this.config.from, to: mail.to, subject: mail.subject, text: mail.text };
    if (this.config.smtpUrl) {
      await this.transport.sendMail(message);
      return;
    }
    const info = (await this.transport.sendMail(message)) as { message: Buffer };
    await mkdir(this.config.directory, { recursive: true });
    const file = join(this.config.directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
    await writeFile(file, info.message, { mode: 0o600 });
    this.logger.log(`Mail "${mail.subject}" to ${mail.to} written to ${file} (no SMTP_URL)${mail.links.length ? `: ${mail.links.join(' ')}` : ''}`);
  }

  /** A link into the service, as its users reach it (PUBLIC_URL). */
  link(path: string, token: string): string {
    return `${this.config.publicUrl}${path}?token=${encodeURIComponent(token)}`;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.inFlight > 0) await new Promise<void>((done) => (this.drained = done));
    this.transport.close();
  }
}
