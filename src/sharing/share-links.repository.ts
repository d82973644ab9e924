import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model, Types } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { EventRelay } from '../events/event-relay';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { ShareLink } from './share-link.schema';
import { LinkView } from './share-link-view.schema';
import { toShareLinkView } from './sharing.mapper';

export interface NewShareLink {
  _id: Types.ObjectId;
  contentProjectId: Types.ObjectId;
  hash: string;
  start: string;
  passwordHash: string | null;
  expiresAt: Date | null;
}

/** The share links of a platform project: the only code that reads or writes them. */
@Injectable()
export class ShareLinksRepository {
  private readonly records: TenantRecords<ShareLink>;
  private readonly views: TenantRecords<LinkView>;

  constructor(
    @InjectModel(ShareLink.name) model: Model<ShareLink>,
    @InjectModel(LinkView.name) views: Model<LinkView>,
    relay: EventRelay,
  ) {
    this.records = new TenantRecords(
      model,
      relay.recorder(new Records(model), (link: ShareLink) => toShareLinkView(link)),
    );
    this.views = new TenantRecords(views);
  }

  insert(scope: TenantScope, link: NewShareLink): Promise<ShareLink> {
    return this.records.insert(scope, link, ['share_link.created']);
  }

  /** One page of a content project's links, newest first, revoked and expired ones included, and the total. */
  async page(
    scope: TenantScope,
    contentProjectId: Types.ObjectId,
    skip: number,
    limit: number,
  ): Promise<{ rows: ShareLink[]; total: number }> {
    const conditions = { contentProjectId };
    const [rows, total] = await Promise.all([
      this.records.find(scope, conditions, { sort: { _id: -1 }, skip, limit, include: ['passwordHash'] }),
      this.records.count(scope, conditions),
    ]);
    return { rows, total };
  }

  findInProject(scope: TenantScope, contentProjectId: Types.ObjectId, id: string): Promise<ShareLink | null> {
    return this.records.findById(scope, id, { contentProjectId });
  }

  /** Revokes the link unless it is revoked already (recorded as `share_link.revoked`); false when no such link exists at all. */
  async revoke(scope: TenantScope, contentProjectId: Types.ObjectId, id: string, at: Date): Promise<boolean> {
    const _id = toObjectId(id);
    if (!_id) return false;
    const result = await this.records.updateOne(
      scope,
      { _id, contentProjectId, revokedAt: null },
      { $set: { revokedAt: at } },
      { event: 'share_link.revoked' },
    );
    return result.matched > 0 || this.records.existsById(scope, id, { contentProjectId });
  }

  /** The link with this token's hash, with its password's hash: one read through the unique index. */
  findByHash(scope: TenantScope, hash: string): Promise<(ShareLink & { passwordHash: string | null }) | null> {
    return this.records.findOne(scope, { hash }, { include: ['passwordHash'] });
  }

  /** One more view of the link: one insert, which concurrent views cannot lose (see LinkView). */
  async countView(scope: TenantScope, id: Types.ObjectId, at: Date): Promise<void> {
    await this.views.insert(scope, { shareLinkId: id, at });
  }

  /** The views of each of these links (a link without any is absent): one aggregation through the index. */
  async viewsOf(scope: TenantScope, ids: readonly Types.ObjectId[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const counted = await this.views.aggregate<{ _id: Types.ObjectId; views: number }>(
      scope,
      { shareLinkId: { $in: [...ids] } },
      [{ $group: { _id: '$shareLinkId', views: { $sum: 1 } } }],
    );
    return new Map(counted.map((row) => [String(row._id), row.views]));
  }

  /** The cascade of content projects' deletes: their links (each recorded as `share_link.deleted`), then those links' views. */
  async deleteOfProjects(scope: TenantScope, contentProjectIds: readonly Types.ObjectId[]): Promise<void> {
    if (contentProjectIds.length === 0) return;
    const ids = (await this.records.find(scope, { contentProjectId: { $in: [...contentProjectIds] } })).map(
      (link) => link._id,
    );
    if (ids.length === 0) return;
    await this.records.deleteMany(
      scope,
      { contentProjectId: { $in: [...contentProjectIds] } },
      { event: 'share_link.deleted' },
    );
    await this.views.deleteMany(scope, { shareLinkId: { $in: ids } });
  }
}
