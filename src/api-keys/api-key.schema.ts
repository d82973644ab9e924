import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { schemaOptions } from '../common/database/schema-options';
import { API_NAMES, type ApiName } from '../tenancy/api-names';
import { API_KEY_KINDS, type ApiKeyKind } from './api-key-secret';

/**
 * A platform project's API key. The key itself is never stored: only its SHA-256 (`hash`, looked up
 * once per request through its unique index) and its first characters (`start`) for lists.
 */
@Schema(schemaOptions('api_keys', ['hash']))
export class ApiKey {
  _id: Types.ObjectId;

  @Prop({ type: String, required: true })
  hash: string;

  @Prop({ type: String, required: true })
  start: string;

  @Prop({ type: String, required: true, trim: true })
  name: string;

  /** Keys stored before kinds existed lack it: they are secret keys. */
  @Prop({ type: String, enum: API_KEY_KINDS, default: 'secret', immutable: true })
  kind?: ApiKeyKind;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true, immutable: true })
  accountId: Types.ObjectId;

  @Prop({ type: MongooseSchema.Types.ObjectId, required: true, immutable: true })
  projectId: Types.ObjectId;

  /** The APIs the key may call; null: every API enabled in its project. */
  @Prop({ type: [String], enum: API_NAMES, default: null })
  scopes: ApiName[] | null;

  /** When the key stops working; null: never. Its own expiry, or the earlier end a roll gave it. */
  @Prop({ type: Date, default: null })
  expiresAt: Date | null;

  /**
   * The expiry the key was issued with (asked at creation, or handed on by a roll); null: none.
   * A roll gives the new key this, never the grace end the rolled key got. Keys issued before it
   * existed lack it: their `expiresAt` stands in.
   */
  @Prop({ type: Date, default: null })
  ownExpiresAt?: Date | null;

  @Prop({ type: Date, default: null })
  revokedAt: Date | null;

  /** The key this one was rolled from: a key has at most one successor (keys rolled before this field existed name none). */
  @Prop({ type: MongooseSchema.Types.ObjectId, default: undefined })
  rolledFrom?: Types.ObjectId;

  /** Written at most once a minute per key, off the request's path. */
  @Prop({ type: Date, default: null })
  lastUsedAt: Date | null;

  createdAt: Date;
  updatedAt: Date;
}

export const ApiKeySchema = SchemaFactory.createForClass(ApiKey);
ApiKeySchema.index({ hash: 1 }, { unique: true });
// Lists and key routes read a project's keys, newest first.
ApiKeySchema.index({ projectId: 1, createdAt: -1 });
// A roll asks whether the key already has a successor.
ApiKeySchema.index({ rolledFrom: 1 }, { sparse: true });
