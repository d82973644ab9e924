import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type AnyKeys, type Model } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { EventRelay } from '../events/event-relay';
import type { RecordedEventType } from '../tenancy/recorded-event-types';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Asset, type AssetStatus } from './asset.schema';
import { AssetDeletion } from './asset-deletion.schema';
import { AssetUpload } from './asset-upload.schema';
import { toAssetResponse } from './assets.mapper';

/** The statuses whose bytes count against the project's storage: every one but `errored` (whose bytes are gone). */
const HOLDING_BYTES: AssetStatus[] = ['waiting', 'uploading', 'processing', 'ready'];
/** An asset whose delete has not begun: the only kind read, listed or served. */
const LIVE = { deletingAt: null };

/** Assets and their open uploads: the only code that reads or writes them. */
@Injectable()
export class AssetsRepository {
  private readonly assets: TenantRecords<Asset>;
  private readonly uploads: Records<AssetUpload>;
  private readonly deletions: Records<AssetDeletion>;

  constructor(
    @InjectModel(Asset.name) model: Model<Asset>,
    @InjectModel(AssetUpload.name) uploads: Model<AssetUpload>,
    @InjectModel(AssetDeletion.name) deletions: Model<AssetDeletion>,
    relay: EventRelay,
  ) {
    this.assets = new TenantRecords(model, relay.recorder(new Records(model), toAssetResponse));
    this.uploads = new Records(uploads);
    this.deletions = new Records(deletions);
  }

  insert(scope: TenantScope, fields: AnyKeys<Asset>): Promise<Asset> {
    return this.assets.insert(scope, fields, ['asset.created']);
  }

  /** The asset unless its delete has begun. */
  findById(scope: TenantScope, id: string): Promise<Asset | null> {
    return this.assets.findById(scope, id, LIVE);
  }

  /** The asset whether or not its delete has begun (the delete's own reads). */
  findStoredById(scope: TenantScope, id: string): Promise<Asset | null> {
    return this.assets.findById(scope, id);
  }

  async page(
    scope: TenantScope,
    contentProjectId: string,
    skip: number,
    limit: number,
  ): Promise<{ rows: Asset[]; total: number }> {
    const conditions = { contentProjectId: toObjectId(contentProjectId), ...LIVE };
    const [rows, total] = await Promise.all([
      this.assets.find(scope, conditions, { sort: { _id: -1 }, skip, limit }),
      this.assets.count(scope, conditions),
    ]);
    return { rows, total };
  }

  /** Bytes the platform project's assets hold or will hold once uploaded. */
  async storedBytes(scope: TenantScope): Promise<number> {
    const [sum] = await this.assets.aggregate<{ bytes: number }>(scope, { status: { $in: HOLDING_BYTES } }, [
      { $group: { _id: null, bytes: { $sum: '$size' } } },
    ]);
    return sum?.bytes ?? 0;
  }

  updateText(
    scope: TenantScope,
    id: string,
    set: { title?: string; description?: string | null },
  ): Promise<Asset | null> {
    const _id = toObjectId(id);
    return _id
      ? this.assets.updateAndGet(scope, { _id }, { $set: set }, { event: 'asset.updated', diff: true })
      : Promise.resolve(null);
  }

  /** Moves the asset from one of `from` to `to`, with the fields; the asset after, or null when it was in no such status. */
  moveStatus(
    scope: TenantScope,
    id: string,
    from: readonly AssetStatus[],
    to: AssetStatus,
    set: Partial<Asset> = {},
    event?: RecordedEventType,
  ): Promise<Asset | null> {
    const _id = toObjectId(id);
    if (!_id) return Promise.resolve(null);
    return this.assets.updateAndGet(
      scope,
      { _id, status: { $in: [...from] } },
      { $set: { ...set, status: to } },
      event ? { event } : {},
    );
  }

  /**
   * Marks the `processing` asset as taken up under the processing lease's `fence`, unless a holder
   * with a later one did: whether this holder now owns its outcome. A guarded update: the filter
   * compares the tokens, so a holder taken over (a smaller token) is refused whatever its clock says.
   */
  async takeUpProcessing(scope: TenantScope, id: string, fence: number): Promise<boolean> {
    const _id = toObjectId(id);
    if (!_id) return false;
    const earlier = {
      $or: [{ processingFence: null }, { processingFence: { $lt: fence } }, { processingFence: fence }],
    };
    const taken = await this.assets.updateOne(
      scope,
      { _id, status: 'processing', ...earlier },
      { $set: { processingFence: fence } },
      { keepTimestamps: true },
    );
    return taken.matched > 0;
  }

  /** `moveStatus` from `processing`, only by the holder that took the asset up under `fence` (`takeUpProcessing`). */
  settleProcessing(
    scope: TenantScope,
    id: string,
    fence: number,
    to: AssetStatus,
    set: Partial<Asset>,
    event: RecordedEventType,
  ): Promise<Asset | null> {
    const _id = toObjectId(id);
    if (!_id) return Promise.resolve(null);
    return this.assets.updateAndGet(
      scope,
      { _id, status: 'processing', processingFence: fence },
      { $set: { ...set, status: to } },
      { event },
    );
  }

  async deleteById(scope: TenantScope, id: string): Promise<boolean> {
    const _id = toObjectId(id);
    return _id ? this.assets.deleteOne(scope, { _id }, { event: 'asset.deleted' }) : false;
  }

  /** Marks these assets as being deleted (no event: the delete records `asset.deleted` when the record goes). */
  async markDeleting(scope: TenantScope, ids: readonly string[], now = new Date()): Promise<void> {
    const _ids = ids.map((id) => toObjectId(id)).filter((id): id is Types.ObjectId => id !== null);
    if (_ids.length > 0)
      await this.assets.updateMany(scope, { _id: { $in: _ids }, ...LIVE }, { $set: { deletingAt: now } });
  }

  /** The ids of the assets of these content projects, those being deleted included. */
  async idsOfProjects(scope: TenantScope, contentProjectIds: readonly string[]): Promise<string[]> {
    const ids = contentProjectIds.map((id) => toObjectId(id)).filter((id): id is Types.ObjectId => id !== null);
    if (ids.length === 0) return [];
    const rows = await this.assets.find(scope, { contentProjectId: { $in: ids } }, { fields: ['_id'] });
    return rows.map((row) => String(row._id));
  }

  // --- an asset's own delete, until it is done (across tenants) ---

  /** Records the asset's delete unless it is recorded already; due for the sweep from `dueAt`. */
  async recordDeletion(scope: TenantScope, assetId: string, dueAt: Date): Promise<void> {
    const _id = toObjectId(assetId);
    if (_id)
      await this.deletions.insertUnlessExists(
        { _id },
        { accountId: scope.accountId, projectId: new Types.ObjectId(scope.projectId), dueAt, attempts: 0 },
      );
  }

  async deletionDone(assetId: string): Promise<void> {
    const _id = toObjectId(assetId);
    if (_id) await this.deletions.deleteOne({ _id });
  }

  /** A try of the delete failed: the next one is due at `dueAt`. */
  async deletionFailed(assetId: string, dueAt: Date): Promise<void> {
    const _id = toObjectId(assetId);
    if (_id) await this.deletions.updateOne({ _id }, { $set: { dueAt }, $inc: { attempts: 1 } });
  }

  /** Deletes due for the sweep (their request stopped, or failed), oldest due first. */
  dueDeletions(now: Date, limit: number): Promise<AssetDeletion[]> {
    return this.deletions.find({ dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit });
  }

  // --- uploads (across tenants) ---

  async openUpload(scope: TenantScope, assetId: Types.ObjectId, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.uploads.insert({
      _id: assetId,
      accountId: scope.accountId,
      projectId: new Types.ObjectId(scope.projectId),
      tokenHash,
      expiresAt,
    });
  }

  findUpload(assetId: string): Promise<AssetUpload | null> {
    const _id = toObjectId(assetId);
    return _id ? this.uploads.findOne({ _id }) : Promise.resolve(null);
  }

  /** The upload's last byte landed: the ticket is `processing` from now. */
  async markUploadProcessing(assetId: string, now = new Date()): Promise<void> {
    const _id = toObjectId(assetId);
    if (_id) await this.uploads.updateOne({ _id }, { $set: { stage: 'processing', processingSince: now } });
  }

  /** The ticket is open again: the upload takes bytes and expires as a new one would. */
  async reopenUpload(assetId: string): Promise<void> {
    const _id = toObjectId(assetId);
    if (_id) await this.uploads.updateOne({ _id }, { $set: { stage: 'open', processingSince: null } });
  }

  /** Counts one more try at processing that missed its deadline; how many there were, 0 when the ticket is gone. */
  async countStalledTry(assetId: string): Promise<number> {
    const _id = toObjectId(assetId);
    const upload = _id ? await this.uploads.updateAndGet({ _id }, { $inc: { stalledTries: 1 } }) : null;
    return upload?.stalledTries ?? 0;
  }

  async closeUpload(assetId: string): Promise<void> {
    const _id = toObjectId(assetId);
    if (_id) await this.uploads.deleteOne({ _id });
  }

  /** Uploads waiting to be processed (a crashed processor's included), oldest first. */
  uploadsToProcess(limit: number): Promise<AssetUpload[]> {
    return this.uploads.find({ stage: 'processing' }, { sort: { _id: 1 }, limit });
  }

  /** Open uploads past their expiry. */
  expiredUploads(now: Date, limit: number): Promise<AssetUpload[]> {
    return this.uploads.find({ stage: 'open', expiresAt: { $lt: now } }, { limit });
  }
}
