import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  PayloadTooLargeException,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ModuleRef } from '@nestjs/core';
import { ASSET_UPLOADED, InProcessEmitter } from '../in-process-events/in-process-events';
import { Types } from 'mongoose';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ContentPage } from '../common/paging/total-count';
import type { ContentListQuery } from '../common/paging/content-list.query';
import { assetsConfig } from '../config/assets.config';
import { Leases } from '../leases/leases.service';
import { scopeOfRecord, type TenantScope } from '../tenancy/tenant-scope';
import type { Asset, AssetError, AssetStatus } from './asset.schema';
import { AssetStorage } from './asset-storage';
import { ProjectChannelLookup } from './assets.ports';
import { toAssetResponse } from './assets.mapper';
import { AssetsRepository } from './assets.repository';
import { signContentGrant, verifyContentGrant } from './content-url';
import { uploadLockKey, whileUploadLocked } from './upload-locker';
import type { AssetContentUrlResponse, AssetResponse, CreatedAssetResponse } from './dto/asset.response';
import type { CreateAssetDto } from './dto/create-asset.dto';
import type { UpdateAssetDto } from './dto/update-asset.dto';

export const ASSET_NOT_FOUND = 'Asset not found';
const PROJECT_NOT_FOUND = 'Project not found';
const UPLOAD_BUSY = "The asset's upload is being written; its delete goes on in the background, or retry the request";
/** How long an asset's delete holds its upload's lock at a time (renewed while it lives). */
const DELETE_LOCK_HOLD_MS = 15_000;
/** How long a delete waits for an upload request under way to let go of the upload's lock. */
const DELETE_LOCK_WAIT_MS = 20_000;
/** How long an asset's delete is left to its own request before the sweep takes it as stopped. */
const DELETE_GRACE_MS = 45_000;
/** Waits before the next try of a delete that failed, by tries so far (the last repeats). */
const DELETE_BACKOFF_MS = [5_000, 30_000, 120_000, 600_000];

export function deleteBackoffMs(attempts: number): number {
  return DELETE_BACKOFF_MS[Math.min(attempts, DELETE_BACKOFF_MS.length - 1)];
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** What the processor found in the bytes: the fields a `ready` asset gets, or why it is `errored`. */
export type ProcessingOutcome = { ready: Partial<Asset> } | { error: AssetError };

/**
 * Assets: the records, their upload's life and the cascade from content projects.
 *
 * Invariant: one upload per asset, processed once, and bytes kept only while the record says they
 * may be. An asset is created (with its upload ticket, `asset_uploads`) only once its size passes
 * both quotas, so no byte of an asset over them is ever received. The upload is bound to it (the
 * tus upload's id is the asset's, `Upload-Length` equal to its `size`, the one project it is in),
 * and its creation moves the asset from `waiting` to `uploading` under a lease on the asset
 * (`asset-upload:<id>`), so of two racing creations one wins and the other is 409. A finished
 * upload is processed under a lease per asset (`asset-processing:<id>`, AssetProcessor), so one
 * instance works on it at a time and another takes it over only once a crashed holder's lease
 * expired; it is settled by a move guarded on `processing`, as every status change is guarded on
 * the status it leaves. When the last byte lands, the ticket is marked `processing` (with the time)
 * before the asset moves from `uploading` to `processing` (`asset.uploaded`); an instance that
 * stops between the two leaves that move to the processor, which makes it under the asset's lease
 * once the ticket has been `processing` for `processingGraceMs` (a live move is never raced:
 * FerretDB does not apply a guarded update atomically, and two moves would record `asset.uploaded`
 * twice), provided the store holds the whole upload; otherwise the ticket is open again and the
 * upload resumable. An upload still open at its expiry (24 h after the asset's creation) is
 * abandoned: the sweep, one instance at a time (`assets:expiry`), makes the asset `errored`
 * (`upload_expired`) and removes its bytes. An asset that ends `errored` or is deleted has its
 * bytes removed after its record changed, and an upload ticket outlives neither: a ticket whose
 * asset is gone has its bytes removed with it. A delete goes the other way: the asset is marked
 * (`deletingAt`: neither read, listed nor served from then on), its upload's lock taken (so no
 * `PATCH` writes meanwhile), its bytes and ticket removed, and its record last (`asset.deleted`);
 * it is recorded first (`asset_deletions`, or the content project cascade's record), so whatever a
 * stopped instance left is finished by the sweep or a retry.
 */
@Injectable()
export class AssetsService {
  private readonly logger = new Logger(AssetsService.name);
  private projectChannels?: ProjectChannelLookup;
  constructor(
    private readonly assets: AssetsRepository,
    private readonly storage: AssetStorage,
    private readonly leases: Leases,
    private readonly events: InProcessEmitter,
    @Inject(assetsConfig.KEY) private readonly config: ConfigType<typeof assetsConfig>,
    private readonly modules: ModuleRef,
  ) {}

  async create(
    scope: TenantScope,
    contentProjectId: string,
    dto: CreateAssetDto,
    baseUrl: string,
  ): Promise<CreatedAssetResponse> {
    await this.channelOf(scope, contentProjectId);
    if (dto.size > this.config.maxBytes) {
      throw new PayloadTooLargeException(
        `size ${dto.size} is over the ${this.config.maxBytes} bytes an asset may hold (ASSET_MAX_BYTES)`,
      );
    }
    const token = randomBytes(24).toString('base64url');
    const _id = new Types.ObjectId();
    const expiresAt = new Date(Date.now() + this.config.uploadTtlMs);
    // One creation at a time per platform project: two could each pass the quota the other fills.
    const asset = await this.leases.withLease(
      `asset-quota:${scope.projectId}`,
      'Another asset is being created in this project; retry',
      async () => {
        const stored = await this.assets.storedBytes(scope);
        if (stored + dto.size > this.config.projectStorageBytes) {
          throw new PayloadTooLargeException(
            `The project's assets would hold ${stored + dto.size} bytes, over its ${this.config.projectStorageBytes} (PROJECT_STORAGE_BYTES)`,
          );
        }
        // The ticket first: an asset always has its ticket; a ticket left without its asset is swept.
        await this.assets.openUpload(scope, _id, hashToken(token), expiresAt);
        return this.assets.insert(scope, {
          _id,
          contentProjectId: new Types.ObjectId(contentProjectId),
          kind: dto.kind,
          title: dto.title,
          description: dto.description ?? null,
          fileName: dto.fileName,
          size: dto.size,
          mimeType: dto.mimeType,
          declaredSha256: dto.sha256?.toLowerCase() ?? null,
          uploadExpiresAt: expiresAt,
        });
      },
    );
    // A content project whose delete began meanwhile may have looked for its assets before this one was written.
    if ((await this.channelOrNull(scope, contentProjectId)) === null) {
      await this.removeAsset(scope, String(_id));
      throw new NotFoundException(PROJECT_NOT_FOUND);
    }
    return {
      asset: toAssetResponse(asset),
      upload: { url: `${baseUrl}/uploads/${String(_id)}/${token}`, expiresAt: expiresAt.toISOString() },
    };
  }

  async list(
    scope: TenantScope,
    contentProjectId: string,
    query: ContentListQuery,
  ): Promise<ContentPage<AssetResponse>> {
    await this.channelOf(scope, contentProjectId);
    const { rows, total } = await this.assets.page(scope, contentProjectId, query.skip, query.limit);
    return { items: rows.map(toAssetResponse), total };
  }

  async findOne(scope: TenantScope, id: string): Promise<AssetResponse> {
    return toAssetResponse(await this.get(scope, id));
  }

  /** The asset, or 404 (another tenant's included). */
  async get(scope: TenantScope, id: string): Promise<Asset> {
    const asset = await this.assets.findById(scope, id);
    if (!asset) throw new NotFoundException(ASSET_NOT_FOUND);
    return asset;
  }

  /**
   * The asset a change (its title, an upload) is made to; the route's declaration asked for the
   * channel role `editor` in its project's channel. Unknown: 404.
   */
  async getToChange(scope: TenantScope, id: string): Promise<Asset> {
    const asset = await this.get(scope, id);
    await this.channelOf(scope, String(asset.contentProjectId), ASSET_NOT_FOUND);
    return asset;
  }

  /** The content project of a stored asset of the scope (one being deleted included), or null: for the access guard's channel role. */
  async projectIdOf(scope: TenantScope, id: string): Promise<string | null> {
    const asset = await this.assets.findStoredById(scope, id);
    return asset ? String(asset.contentProjectId) : null;
  }

  async update(scope: TenantScope, id: string, dto: UpdateAssetDto): Promise<AssetResponse> {
    if (dto.title === null) throw new BadRequestException('title must be a non-empty string');
    await this.getToChange(scope, id);
    const set: { title?: string; description?: string | null } = {};
    if (dto.title !== undefined) set.title = dto.title;
    if (dto.description !== undefined) set.description = dto.description;
    const updated = await this.assets.updateText(scope, id, set);
    if (!updated) throw new NotFoundException(ASSET_NOT_FOUND);
    return toAssetResponse(updated);
  }

  /**
   * Records the delete, then removes the asset (`removeAsset`). A delete a stopped instance left
   * half-way is found again here (the asset is read whether or not its delete began) and by the sweep.
   */
  async remove(scope: TenantScope, id: string): Promise<void> {
    const asset = await this.assets.findStoredById(scope, id);
    if (!asset) throw new NotFoundException(ASSET_NOT_FOUND);
    await this.assets.recordDeletion(scope, id, new Date(Date.now() + DELETE_GRACE_MS));
    await this.finishDeletion(scope, id, 0);
  }

  /** Deletes the sweep finds due (their request stopped or failed), each under a lease; how many were tried. */
  async finishStoppedDeletes(now = new Date()): Promise<number> {
    const due = await this.assets.dueDeletions(now, 20);
    for (const deletion of due) {
      const id = String(deletion._id);
      await this.leases.tryWithLease(`asset-deletion:${id}`, DELETE_LOCK_HOLD_MS, () =>
        this.finishDeletion(scopeOfRecord(deletion), id, deletion.attempts).catch(() => undefined),
      );
    }
    return due.length;
  }

  /** Runs a recorded delete to its end, then drops its record; a failure is logged and tried again after a backoff. */
  private async finishDeletion(scope: TenantScope, id: string, attempts: number): Promise<void> {
    try {
      await this.removeAsset(scope, id);
    } catch (error) {
      const waitMs = deleteBackoffMs(attempts);
      this.logger.warn(
        `Asset ${id}: delete failed (try ${attempts + 1}), tried again in ${waitMs} ms: ${(error as Error).message}`,
      );
      await this.assets.deletionFailed(id, new Date(Date.now() + waitMs));
      throw error;
    }
    await this.assets.deletionDone(id);
  }

  /**
   * Removes one asset, whatever of it is left: marked (no longer served), then under its upload's
   * lock its bytes (`.part` and derived files included) and ticket, then its record (`asset.deleted`,
   * the same event however often it runs). Each step is a no-op once done, so it is run again
   * until it completes.
   */
  private async removeAsset(scope: TenantScope, id: string): Promise<void> {
    await this.assets.markDeleting(scope, [id]);
    const lock = await this.leases.hold(uploadLockKey(id), {
      holdMs: DELETE_LOCK_HOLD_MS,
      waitMs: DELETE_LOCK_WAIT_MS,
    });
    if (!lock) throw new ConflictException(UPLOAD_BUSY);
    try {
      await this.storage.remove(id);
      await this.assets.closeUpload(id);
      await this.assets.deleteById(scope, id);
    } finally {
      await lock.release();
    }
  }

  /** Whether any of these content projects holds an asset (a delete without `cascade` refuses them). */
  async anyInProjects(scope: TenantScope, projectIds: readonly string[]): Promise<boolean> {
    return (await this.assets.idsOfProjects(scope, projectIds)).length > 0;
  }

  /**
   * The first step of content projects' cascade: their assets are no longer read or served. Run
   * before the projects themselves are marked, so no asset of a marked project is served.
   */
  async markForProjects(scope: TenantScope, projectIds: readonly string[]): Promise<void> {
    await this.assets.markDeleting(scope, await this.assets.idsOfProjects(scope, projectIds));
  }

  /**
   * The cascade of content projects' deletes: every asset of theirs is marked, then removed one by
   * one (`removeAsset`: bytes, ticket, then record as `asset.deleted`). Idempotent: the cascade's
   * record (ProjectsService) has it run again until it completes.
   */
  async removeForProjects(scope: TenantScope, projectIds: readonly string[]): Promise<void> {
    const ids = await this.assets.idsOfProjects(scope, projectIds);
    await this.assets.markDeleting(scope, ids);
    for (const id of ids) await this.removeAsset(scope, id);
  }

  // --- signed content URLs ---

  /** A short-lived URL that reads a ready asset's bytes without other credentials (for `<audio>`, `<video>`). */
  async contentUrl(scope: TenantScope, id: string, baseUrl: string): Promise<AssetContentUrlResponse> {
    const asset = await this.get(scope, id);
    if (asset.status !== 'ready') throw new NotFoundException(`${ASSET_NOT_FOUND}: it is ${asset.status}, not ready`);
    const expiresAt = Date.now() + this.config.contentUrlTtlMs;
    const token = signContentGrant(this.config.contentUrlKey, {
      assetId: id.toLowerCase(),
      accountId: scope.accountId.toLowerCase(),
      projectId: scope.projectId.toLowerCase(),
      expiresAt,
    });
    // The expiry as signed: whole seconds. On ASSET_PUBLIC_URL when set: the bytes are read apart from the API's origin.
    return {
      url: `${this.config.publicUrl ?? baseUrl}/asset-content/${token}`,
      expiresAt: new Date(Math.floor(expiresAt / 1000) * 1000).toISOString(),
    };
  }

  /** The asset a signed content URL names, with its tenant; null for a token that is malformed, altered or expired, or an asset gone. */
  async byContentToken(token: string): Promise<{ scope: TenantScope; asset: Asset } | null> {
    const grant = verifyContentGrant(this.config.contentUrlKey, token);
    if (!grant) return null;
    const scope = scopeOfRecord(grant);
    const asset = await this.assets.findById(scope, grant.assetId);
    return asset ? { scope, asset } : null;
  }

  // --- uploads ---

  /** The asset a one-time upload URL names, with its tenant; null for an unknown asset or a wrong token. */
  async byUploadToken(assetId: string, token: string): Promise<{ scope: TenantScope; asset: Asset } | null> {
    const upload = await this.assets.findUpload(assetId);
    if (!upload) return null;
    const given = Buffer.from(hashToken(token), 'hex');
    const stored = Buffer.from(upload.tokenHash, 'hex');
    if (given.length !== stored.length || !timingSafeEqual(given, stored)) return null;
    const scope = scopeOfRecord(upload);
    const asset = await this.assets.findById(scope, assetId);
    return asset ? { scope, asset } : null;
  }

  /**
   * Before a tus creation (`POST`): the asset must be waiting for its bytes and the upload as long as
   * its `size`. It then counts as `uploading`, so a second creation for it is refused.
   */
  async beginUpload(scope: TenantScope, asset: Asset, uploadLength: string | undefined): Promise<void> {
    if (uploadLength === undefined || !/^\d+$/.test(uploadLength)) {
      throw new BadRequestException(
        "Upload-Length is required and must be the asset's size (deferred lengths are not accepted)",
      );
    }
    if (Number(uploadLength) !== asset.size) {
      throw new BadRequestException(`Upload-Length ${uploadLength} is not the asset's size, ${asset.size}`);
    }
    const id = String(asset._id);
    await this.leases.withLease(`asset-upload:${id}`, "This asset's upload is being created; retry", async () => {
      const moved = await this.assets.moveStatus(scope, id, ['waiting'], 'uploading');
      if (!moved)
        throw new ConflictException(
          `The asset's upload was already created (status ${(await this.get(scope, id)).status}): resume it with HEAD and PATCH`,
        );
    });
  }

  /** A creation that failed before the store created the upload leaves the asset waiting again. */
  async creationFailed(scope: TenantScope, id: string): Promise<void> {
    if (!(await this.storage.hasUpload(id))) await this.assets.moveStatus(scope, id, ['uploading'], 'waiting');
  }

  /** Refuses a `PATCH` (bytes) or `DELETE` (termination) once the upload is finished, or before it exists. */
  assertUploading(asset: Asset, action: string): void {
    if (asset.status !== 'uploading') {
      throw new ConflictException(
        `Cannot ${action}: the asset is ${asset.status}${asset.status === 'waiting' ? ' (create the upload first with POST)' : ''}`,
      );
    }
  }

  /**
   * A termination, under the upload's lock so no `PATCH` is writing the bytes it removes (423 while
   * one keeps it): no byte is kept, and the asset waits for a new upload.
   */
  async uploadTerminated(scope: TenantScope, id: string): Promise<void> {
    await whileUploadLocked(this.leases, id, async () => {
      await this.storage.remove(id);
      await this.assets.moveStatus(scope, id, ['uploading'], 'waiting');
      // A ticket a stopped finish left `processing` would otherwise outlive the bytes it was marked for.
      await this.assets.reopenUpload(id);
    });
  }

  /** The last byte landed (tus's `onUploadFinish`): the asset is `processing`, recorded as `asset.uploaded`. */
  async uploadFinished(assetId: string): Promise<void> {
    const upload = await this.assets.findUpload(assetId);
    if (!upload) return;
    const scope = scopeOfRecord(upload);
    await this.assets.markUploadProcessing(assetId);
    await this.assets.moveStatus(scope, assetId, ['uploading'], 'processing', {}, 'asset.uploaded');
    // This instance starts on it at once; every instance's processor also polls.
    this.events.emit(ASSET_UPLOADED);
  }

  // --- processing and expiry (AssetProcessor) ---

  uploadsToProcess(limit: number) {
    return this.assets.uploadsToProcess(limit);
  }

  /**
   * The processing lease's holder takes the `processing` asset up under its fencing token: false when
   * a holder with a later token did (this one was taken over), or the asset is no longer processing.
   */
  async takeUpProcessing(assetId: string, fence: number): Promise<boolean> {
    const upload = await this.assets.findUpload(assetId);
    return upload ? this.assets.takeUpProcessing(scopeOfRecord(upload), assetId, fence) : false;
  }

  /**
   * Settles a processed asset: `ready` with what was found, or `errored` with its bytes removed;
   * written only under the fencing token the asset was taken up with (`takeUpProcessing`): a holder
   * taken over meanwhile changes nothing.
   */
  async settle(assetId: string, outcome: ProcessingOutcome, fence: number): Promise<void> {
    const upload = await this.assets.findUpload(assetId);
    if (!upload) return;
    const scope = scopeOfRecord(upload);
    if ('ready' in outcome) {
      if (!(await this.assets.settleProcessing(scope, assetId, fence, 'ready', outcome.ready, 'asset.ready'))) return;
    } else {
      const failed = await this.assets.settleProcessing(
        scope,
        assetId,
        fence,
        'errored',
        { error: outcome.error },
        'asset.errored',
      );
      if (!failed) return;
      this.logger.log(`Asset ${assetId} errored: ${outcome.error.code}`);
      await this.storage.remove(assetId);
    }
    await this.assets.closeUpload(assetId);
  }

  /**
   * The asset being processed, with its tenant; null when it is not `processing`. Its ticket is
   * closed only once the asset is past processing (`ready`, `errored`) or gone: `uploadFinished`
   * marks the ticket before it moves the asset, so a sweep in between, on any instance, finds the
   * asset still `uploading`, and closing the ticket then would leave the asset `processing` with
   * nothing to process it. A ticket `processing` past the grace whose asset has not moved is a
   * finish that stopped half-way: it is completed here (`finishStoppedUpload`).
   */
  async processing(assetId: string, now = new Date()): Promise<Asset | null> {
    const upload = await this.assets.findUpload(assetId);
    if (!upload) return null;
    const scope = scopeOfRecord(upload);
    const asset = await this.assets.findById(scope, assetId);
    if (!asset) {
      await this.discardBytes(assetId);
      return null;
    }
    if (asset.status === 'processing') return asset;
    if (asset.status === 'ready' || asset.status === 'errored') {
      await this.assets.closeUpload(assetId);
      return null;
    }
    // A ticket from before the time was kept has been processing for longer than any grace.
    const since = upload.processingSince?.getTime() ?? 0;
    if (now.getTime() - since < this.config.processingGraceMs) return null;
    return this.finishStoppedUpload(scope, asset);
  }

  /**
   * What `uploadFinished` left undone when its instance stopped after marking the ticket: the asset,
   * still `uploading` (or `waiting` after a termination), moves to `processing` with its
   * `asset.uploaded` when the store holds every byte of it; otherwise the ticket is open again, so
   * the upload resumes and expires as any open one.
   */
  private async finishStoppedUpload(scope: TenantScope, asset: Asset): Promise<Asset | null> {
    const id = String(asset._id);
    const stored = asset.status === 'uploading' ? await this.storage.uploadProgress(id) : null;
    if (!stored || stored.offset !== asset.size) {
      this.logger.warn(
        `Asset ${id}: its upload ticket was processing but the store holds ${stored?.offset ?? 0} of its ${asset.size} bytes; the upload is open again`,
      );
      await this.assets.reopenUpload(id);
      return null;
    }
    const moved = await this.assets.moveStatus(scope, id, ['uploading'], 'processing', {}, 'asset.uploaded');
    if (moved)
      this.logger.warn(`Asset ${id}: its upload finished but the asset was still uploading; moved to processing`);
    return moved;
  }

  /** One more try at processing the asset missed its deadline: how many have, 0 when it is settled already. */
  countStalledTry(assetId: string): Promise<number> {
    return this.assets.countStalledTry(assetId);
  }

  /** Uploads past their expiry: the asset `errored` (`upload_expired`), the bytes removed. How many. */
  async expireUploads(now = new Date()): Promise<number> {
    const expired = await this.assets.expiredUploads(now, 100);
    for (const upload of expired) {
      const id = String(upload._id);
      const scope = scopeOfRecord(upload);
      await this.fail(scope, id, ['waiting', 'uploading'], {
        code: 'upload_expired',
        message: 'The upload was not finished by its expiry',
      });
      await this.discardBytes(id);
    }
    return expired.length;
  }

  private async fail(scope: TenantScope, id: string, from: AssetStatus[], error: AssetError): Promise<void> {
    const failed = await this.assets.moveStatus(scope, id, from, 'errored', { error }, 'asset.errored');
    if (failed) {
      this.logger.log(`Asset ${id} errored: ${error.code}`);
      await this.storage.remove(id);
    }
  }

  private async discardBytes(id: string): Promise<void> {
    await this.storage.remove(id);
    await this.assets.closeUpload(id);
  }

  /** The channel of a content project of the scope's platform project; 404 (`notFound`) for an unknown one. */
  private async channelOf(scope: TenantScope, contentProjectId: string, notFound = PROJECT_NOT_FOUND): Promise<string> {
    const channelId = await this.channelOrNull(scope, contentProjectId);
    if (!channelId) throw new NotFoundException(notFound);
    return channelId;
  }

  /** The channel of a content project, null for an unknown one or one being deleted. */
  private channelOrNull(scope: TenantScope, contentProjectId: string): Promise<string | null> {
    // The projects module provides the lookup without this module importing it; found on first use.
    this.projectChannels ??= this.modules.get(ProjectChannelLookup, { strict: false });
    return this.projectChannels.channelOf(scope, contentProjectId);
  }
}
