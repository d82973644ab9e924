import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

export const OUTGOING_MAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type OutgoingMailStatus = (typeof OUTGOING_MAIL_STATUSES)[number];

/**
 * A mail the service has to send, recorded before the answer of the request that causes it, and
 * sent from the record (MailSender): a process that stops before sending it leaves it to the next
 * sender. Its text may hold a link that acts (a password reset), so it is stored encrypted, bound
 * to this record, and dropped once the mail is sent or given up.
 *
 * Not tenant-owned: it is addressed to a person, not to a project's data; only MailSender reads it.
 */
@Schema(schemaOptions('outgoing_mails', ['text']))
export class OutgoingMail {
  _id: Types.ObjectId;

  @Prop({ type: String, required: true })
  to: string;

  @Prop({ type: String, required: true })
  subject: string;

  /** The text, encrypted (FieldEncryption, bound to the record's id and `text`); unset once done. */
  @Prop({ type: String })
  text?: string;

  @Prop({ type: String, enum: OUTGOING_MAIL_STATUSES, default: 'pending' })
  status: OutgoingMailStatus;

  /** Attempts made so far, the one under way included. */
  @Prop({ type: Number, default: 0 })
  attempts: number;

  /** When the next attempt is due; null once sent or given up. */
  @Prop({ type: Date, default: null })
  nextAttemptAt: Date | null;

  /**
   * The attempt under way: a sender takes it with a guarded update (this token, while it is null or
   * its holder's time is up) and records its outcome only while it still holds it.
   */
  @Prop({ type: String, default: null })
  claimToken: string | null;

  @Prop({ type: Date, default: null })
  claimedUntil: Date | null;

  @Prop({ type: String, default: null })
  lastError: string | null;

  @Prop({ type: Date, default: null })
  sentAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const OutgoingMailSchema = SchemaFactory.createForClass(OutgoingMail);
// The mails due, soonest first.
OutgoingMailSchema.index({ status: 1, nextAttemptAt: 1 });
