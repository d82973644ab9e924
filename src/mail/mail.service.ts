import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectModel } from '@nestjs/mongoose';
import { randomUUID } from 'node:crypto';
import { Types, type Model } from 'mongoose';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { mailConfig } from '../config/mail.config';
import { Records } from '../database/records';
import { JobRunner, type JobHandle } from '../jobs/job-runner';
import { MailTransport, type Mail } from './mail-transport';
import { OutgoingMail } from './outgoing-mail.schema';

export type { Mail } from './mail-transport';

/** How long an attempt is held by its sender: well past the transport's timeouts, and any clock skew between instances. */
const CLAIM_MS = 2 * 60_000;
/** How often each instance looks for mails due (a retry, or one whose sender stopped). */
const POLL_MS = 5_000;
const POLL_BATCH = 20;
/** Attempts before a mail is given up (logged as an error); the waits between them double from RETRY_BASE_MS. */
export const MAX_MAIL_ATTEMPTS = 8;
const RETRY_BASE_MS = 10_000;
const RETRY_MAX_MS = 60 * 60_000;
/** Sent and given-up mails are kept this long (no text left in them), then dropped. */
const KEPT_SECONDS = 7 * 24 * 3600;

/**
 * The service's outgoing mail. `send` records the mail (its text encrypted) before the request that
 * causes it answers, then tries it at once from this instance; every instance polls for mails due,
 * so a mail whose process stopped before sending it, or whose send failed, is sent by whichever
 * instance comes next, with exponential backoff, up to MAX_MAIL_ATTEMPTS.
 *
 * Invariant: one attempt of a mail at a time. A sender takes a mail by a guarded update (pending
 * and due), which moves it out of `due` for CLAIM_MS and gives it a fresh token; the outcome is
 * written only while that token is still the mail's. A sender that stops mid-send leaves the mail
 * due again once the claim ends: it may then be sent twice (at least once, never lost), with the
 * same Message-ID, so a mail client shows it once.
 */
@Injectable()
export class MailService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MailService.name);
  private readonly records: Records<OutgoingMail>;
  private readonly attempts = new Set<Promise<void>>();
  private pollJob?: JobHandle;
  private stopExpiry: () => void = () => undefined;
  private polling = false;
  private stopped = false;

  constructor(
    @Inject(mailConfig.KEY) private readonly config: ConfigType<typeof mailConfig>,
    @InjectModel(OutgoingMail.name) model: Model<OutgoingMail>,
    private readonly transport: MailTransport,
    private readonly encryption: FieldEncryption,
    private readonly jobs: JobRunner,
  ) {
    this.records = new Records(model);
  }

  onModuleInit(): void {
    this.pollJob = this.jobs.register({ name: 'mail.send-due', everyMs: POLL_MS, run: () => this.sendDue() });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.stopExpiry = await this.records.expireByAge(KEPT_SECONDS, this.logger);
  }

  /** Records the mail; it is sent off the request's path, from the record, until it leaves. */
  async send(mail: Mail): Promise<void> {
    const _id = new Types.ObjectId();
    await this.records.insert({
      _id,
      to: mail.to,
      subject: mail.subject,
      text: this.encryption.encrypt(mail.text, textOf(_id)),
      status: 'pending',
      nextAttemptAt: new Date(),
    });
    this.track(this.attempt(_id));
  }

  /** A link into the service, as its users reach it (PUBLIC_URL). */
  link(path: string, token: string): string {
    return `${this.config.publicUrl}${path}?token=${encodeURIComponent(token)}`;
  }

  /** The mails due, oldest first, a batch at a time: retries, and those whose sender stopped. */
  async sendDue(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const due = await this.records.find(
        { status: 'pending', nextAttemptAt: { $lte: new Date() } },
        { sort: { nextAttemptAt: 1 }, limit: POLL_BATCH, fields: ['_id'] },
      );
      for (const mail of due) await this.track(this.attempt(mail._id));
    } finally {
      this.polling = false;
    }
  }

  /** Stops taking mails, waits for the poll and the attempts under way, then closes SMTP. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.pollJob?.stop();
    this.stopExpiry();
    await Promise.allSettled([...this.attempts]);
    this.transport.close();
  }

  private track(attempt: Promise<void>): Promise<void> {
    this.attempts.add(attempt);
    return attempt.finally(() => this.attempts.delete(attempt));
  }

  /** One attempt, if this caller takes the mail; its outcome recorded under the claim's token. */
  private async attempt(_id: Types.ObjectId): Promise<void> {
    if (this.stopped) return;
    const token = randomUUID();
    const now = new Date();
    let mail: OutgoingMail | null;
    try {
      mail = await this.records.updateAndGet(
        { _id, status: 'pending', nextAttemptAt: { $lte: now } },
        {
          $set: {
            claimToken: token,
            claimedUntil: new Date(now.getTime() + CLAIM_MS),
            nextAttemptAt: new Date(now.getTime() + CLAIM_MS),
          },
          $inc: { attempts: 1 },
        },
      );
    } catch (error) {
      this.logger.warn(`Taking mail ${String(_id)} failed, left for the next poll: ${(error as Error).message}`);
      return;
    }
    if (!mail?.text) return;
    const mine = { _id, claimToken: token };
    const done = { claimToken: null, claimedUntil: null, nextAttemptAt: null };
    try {
      await this.transport.deliver(
        { to: mail.to, subject: mail.subject, text: this.encryption.decrypt(mail.text, textOf(_id)), links: [] },
        `<${String(_id)}@${this.messageIdHost()}>`,
      );
      await this.records.updateOne(mine, {
        $set: { ...done, status: 'sent', sentAt: new Date(), lastError: null },
        $unset: { text: 1 },
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const givenUp = mail.attempts >= MAX_MAIL_ATTEMPTS;
      this.logger.error(
        `Mail ${String(_id)} "${mail.subject}" to ${mail.to} was not sent (attempt ${mail.attempts}${givenUp ? ', given up' : ', will be retried'}): ${reason}`,
      );
      const next = new Date(Date.now() + Math.min(RETRY_BASE_MS * 2 ** (mail.attempts - 1), RETRY_MAX_MS));
      await this.records
        .updateOne(
          mine,
          givenUp
            ? { $set: { ...done, status: 'failed', lastError: reason }, $unset: { text: 1 } }
            : { $set: { ...done, nextAttemptAt: next, lastError: reason } },
        )
        .catch((failure: Error) =>
          this.logger.warn(
            `Recording the outcome of mail ${String(_id)} failed; it is due again after its claim: ${failure.message}`,
          ),
        );
    }
  }

  private messageIdHost(): string {
    try {
      return new URL(this.config.publicUrl).hostname || 'localhost';
    } catch {
      return 'localhost';
    }
  }
}

function textOf(_id: Types.ObjectId): { record: string; field: string } {
  return { record: String(_id), field: 'text' };
}
