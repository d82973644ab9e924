import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';

export const AUDIT_ACTIONS = [
  'account.created',
  'account.updated',
  'ownership.transferred',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'invitation.revoked',
  'platform_project.created',
  'platform_project.updated',
  'platform_project.deleted',
  'api_key.created',
  'api_key.rolled',
  'api_key.revoked',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rolled',
  'customer.deleted',
  'payment.refunded',
  'collection.deleted',
  'client.deleted',
  'collaborator.added',
  'collaborator.changed',
  'collaborator.removed',
  'share_link.created',
  'share_link.revoked',
  'grant.created',
  'grant.revoked',
  'user.logged_in',
  'user.login_failed',
  'session.revoked',
  'password.changed',
  'mfa.enabled',
  'mfa.disabled',
  'passkey.added',
  'passkey.removed',
  'account.mfa_required',
  'password.reset',
  'search_history.paused',
  'search_history.resumed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditParty {
  type: string;
  id: string;
  /** An email or a key's first 12 characters; never a secret. */
  label: string | null;
}

/**
 * One entry of an account's audit log: append-only, numbered without gaps per account, and chained:
 * `hash` is SHA-256 of `previousHash` and this entry's canonical JSON (every field but `hash`), so an
 * edit or a removal in the database breaks the chain where it happened.
 */
@Schema({ ...schemaOptions('audit_log'), timestamps: false })
export class AuditEntry {
  _id: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true })
  accountId: Types.ObjectId;

  @Prop({ type: Number, required: true })
  sequence: number;

  /** The entry's id from its intent on: appending it twice is one entry. */
  @Prop({ type: String, required: true })
  entryId: string;

  @Prop({ type: String, required: true })
  action: string;

  @Prop({ type: Date, required: true })
  occurredAt: Date;

  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  actor: AuditParty;

  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  target: AuditParty;

  @Prop({ type: String, default: null })
  projectId: string | null;

  /** The changed fields as JSON (`{ field: [before, after] }`): arrays inside arrays are not stored as such. */
  @Prop({ type: String, default: null })
  changes: string | null;

  @Prop({ type: String, default: null })
  ip: string | null;

  @Prop({ type: String, default: null })
  userAgent: string | null;

  @Prop({ type: String, default: null })
  requestId: string | null;

  /** The hash of the entry before it (the empty string for an account's first). */
  @Prop({ type: String, default: '' })
  previousHash: string;

  @Prop({ type: String, required: true })
  hash: string;
}

export const AuditEntrySchema = SchemaFactory.createForClass(AuditEntry);
// One entry per number and account: concurrent appends on any instance cannot share or skip one.
AuditEntrySchema.index({ accountId: 1, sequence: 1 }, { unique: true });
AuditEntrySchema.index({ entryId: 1 }, { unique: true });
