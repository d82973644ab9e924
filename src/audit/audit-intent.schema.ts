import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import type { AuditDraft } from './audit-draft';

/**
 * How to tell, after a process stopped, whether an audited action happened: its record's state, or,
 * for a refund, what the payments module answers (`RefundSettlements`).
 */
export type AuditExpectation = RecordExpectation | RefundExpectation;

/** The state an action leaves its own record in (the audit sweep reads it by its collection and id). */
export interface RecordExpectation {
  collection: string;
  id: string;
  /** The record exists (a create), or is gone (a delete). */
  exists?: boolean;
  /** Fields the record has after the action (an update), compared as JSON. */
  fields?: Record<string, unknown>;
  /** Fields the action sets to a value (a revocation's time). */
  present?: string[];
}

/**
 * A refund happened when its payment's totals include it; while it is pending, the payments
 * module's own sweep has still to apply or void it, and the entry waits.
 */
export interface RefundExpectation {
  refund: { paymentId: string; refundId: string };
}

/**
 * An audited action about to run: written before it, removed once its entry is appended, or dropped
 * when it fails. One left behind by a stopped process is settled by the sweep from its expectation.
 */
@Schema({ ...schemaOptions('audit_intents'), timestamps: { createdAt: true, updatedAt: false } })
export class AuditIntent {
  /** The entry's id. */
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  draft: AuditDraft;

  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  expect: AuditExpectation;

  createdAt: Date;
}

export const AuditIntentSchema = SchemaFactory.createForClass(AuditIntent);
AuditIntentSchema.index({ createdAt: 1 });
