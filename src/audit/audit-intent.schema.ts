import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import type { AuditDraft } from './audit-draft';

/** How to tell, after a process stopped, whether an audited action happened: its record's state. */
export interface AuditExpectation {
  collection: string;
  id: string;
  /** The record exists (a create), or is gone (a delete). */
  exists?: boolean;
  /** Fields the record has after the action (an update), compared as JSON. */
  fields?: Record<string, unknown>;
  /** Fields the action sets to a value (a revocation's time). */
  present?: string[];
  /** Array fields that list a value after the action (a payment lists the refunds its totals include). */
  listed?: Record<string, string>;
  /**
   * Not to be judged yet while this record holds these fields: its area's own sweep has still to
   * finish or undo the action (a refund written but not yet applied or voided).
   */
  undecidedWhile?: { collection: string; id: string; fields: Record<string, unknown> };
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
