import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import type { ApiName } from '../tenancy/api-names';
import type { ApiKeyKind } from './api-key-secret';
import { ApiKey } from './api-key.schema';

export interface NewApiKey {
  /** Made before the insert, so the audit log can name the key it is about to create. */
  _id?: Types.ObjectId;
  hash: string;
  start: string;
  name: string;
  kind: ApiKeyKind;
  accountId: Types.ObjectId;
  projectId: Types.ObjectId;
  scopes: ApiName[] | null;
  expiresAt: Date | null;
  ownExpiresAt: Date | null;
  rolledFrom?: Types.ObjectId;
}

/** A platform project of an account, as the key routes name it. */
export interface KeyProject {
  accountId: Types.ObjectId;
  projectId: Types.ObjectId;
}

/** What authenticating a key needs to know of it. */
export type KeyCheck = Pick<
  ApiKey,
  '_id' | 'accountId' | 'projectId' | 'kind' | 'scopes' | 'expiresAt' | 'revokedAt' | 'lastUsedAt'
>;
const KEY_CHECK_FIELDS = ['accountId', 'projectId', 'kind', 'scopes', 'expiresAt', 'revokedAt', 'lastUsedAt'] as const;

/**
 * The api_keys collection. A key is read by its hash (authentication, unscoped: the hash is the
 * key), else always inside its project and account. A malformed id names no key.
 */
@Injectable()
export class ApiKeysRepository {
  private readonly records: Records<ApiKey>;

  constructor(@InjectModel(ApiKey.name) model: Model<ApiKey>) {
    this.records = new Records(model);
  }

  insert(key: NewApiKey): Promise<ApiKey> {
    return this.records.insert(key);
  }

  /** One read by the unique hash index, of the fields authentication checks only. */
  findKeyByHash(hash: string): Promise<KeyCheck | null> {
    return this.records.findOne<KeyCheck>({ hash }, { fields: KEY_CHECK_FIELDS });
  }

  /** Newest first, revoked and expired ones included. */
  listForProject(project: KeyProject): Promise<ApiKey[]> {
    return this.records.find(
      { projectId: project.projectId, accountId: project.accountId },
      { sort: { createdAt: -1, _id: -1 } },
    );
  }

  findInProject(project: KeyProject, keyId: string): Promise<ApiKey | null> {
    const _id = toObjectId(keyId);
    return _id
      ? this.records.findOne({ _id, projectId: project.projectId, accountId: project.accountId })
      : Promise.resolve(null);
  }

  /** Revokes the project's key unless it is revoked already; false when no such key exists at all. */
  async revoke(project: KeyProject, keyId: string, at: Date): Promise<boolean> {
    const _id = toObjectId(keyId);
    if (!_id) return false;
    const owned = { _id, projectId: project.projectId, accountId: project.accountId };
    const result = await this.records.updateOne({ ...owned, revokedAt: null }, { $set: { revokedAt: at } });
    return result.matched > 0 || this.records.exists(owned);
  }

  /** Whether a key was rolled from this one. */
  hasSuccessor(keyId: Types.ObjectId): Promise<boolean> {
    return this.records.exists({ rolledFrom: keyId });
  }

  /**
   * Brings a key's end forward to `end` (a roll's grace), never later than it is: a key without an
   * end, or ending after `end`, is changed; a revoked key stays revoked and is left alone.
   */
  async shortenTo(keyId: Types.ObjectId, end: Date): Promise<void> {
    await this.records.updateOne(
      { _id: keyId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: end } }] },
      { $set: { expiresAt: end } },
    );
  }

  /** Sets `lastUsedAt` unless it is already at or after `cutoff` (another request of the key wrote it). */
  async recordUse(keyId: Types.ObjectId, now: Date, cutoff: Date): Promise<void> {
    await this.records.updateOne(
      { _id: keyId, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: cutoff } }] },
      { $set: { lastUsedAt: now } },
    );
  }

  deleteForProject(project: KeyProject): Promise<number> {
    return this.records.deleteMany({ projectId: project.projectId, accountId: project.accountId });
  }
}
