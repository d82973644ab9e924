import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model, Types } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { EventRelay } from '../events/event-relay';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Grant, type GrantRole } from './grant.schema';
import { GrantViewRecord } from './grant-view.schema';
import { toGrantView } from './sharing.mapper';

export interface NewGrant {
  _id: Types.ObjectId;
  contentProjectId: Types.ObjectId;
  userId: Types.ObjectId | null;
  email: string | null;
  role: GrantRole;
  expiresAt: Date | null;
}

/** The grants of a platform project: the only code that reads or writes them. */
@Injectable()
export class GrantsRepository {
  private readonly records: TenantRecords<Grant>;
  private readonly views: TenantRecords<GrantViewRecord>;

  constructor(
    @InjectModel(Grant.name) model: Model<Grant>,
    @InjectModel(GrantViewRecord.name) views: Model<GrantViewRecord>,
    relay: EventRelay,
  ) {
    this.records = new TenantRecords(
      model,
      relay.recorder(new Records(model), (grant: Grant) => toGrantView(grant)),
    );
    this.views = new TenantRecords(views);
  }

  insert(scope: TenantScope, grant: NewGrant): Promise<Grant> {
    return this.records.insert(scope, grant, ['grant.created']);
  }

  /** One page of a content project's grants, newest first, revoked and expired ones included, and the total. */
  async page(
    scope: TenantScope,
    contentProjectId: Types.ObjectId,
    skip: number,
    limit: number,
  ): Promise<{ rows: Grant[]; total: number }> {
    const conditions = { contentProjectId };
    const [rows, total] = await Promise.all([
      this.records.find(scope, conditions, { sort: { _id: -1 }, skip, limit }),
      this.records.count(scope, conditions),
    ]);
    return { rows, total };
  }

  findInProject(scope: TenantScope, contentProjectId: Types.ObjectId, id: string): Promise<Grant | null> {
    return this.records.findById(scope, id, { contentProjectId });
  }

  /** Revokes the grant unless it is revoked already (recorded as `grant.revoked`); false when no such grant exists at all. */
  async revoke(scope: TenantScope, contentProjectId: Types.ObjectId, id: string, at: Date): Promise<boolean> {
    const _id = toObjectId(id);
    if (!_id) return false;
    const result = await this.records.updateOne(
      scope,
      { _id, contentProjectId, revokedAt: null },
      { $set: { revokedAt: at } },
      { event: 'grant.revoked' },
    );
    return result.matched > 0 || this.records.existsById(scope, id, { contentProjectId });
  }

  /**
   * The unrevoked grants of a person, to their user id or to their email address: two reads, each
   * through its index (one `$or` would not use both on FerretDB). Expiry is the caller's to check.
   */
  async ofPerson(scope: TenantScope, userId: Types.ObjectId, email: string | null): Promise<Grant[]> {
    const [byUser, byEmail] = await Promise.all([
      this.records.find(scope, { userId, revokedAt: null }),
      email ? this.records.find(scope, { email, revokedAt: null }) : Promise.resolve([]),
    ]);
    return [...byUser, ...byEmail];
  }

  /** One more view through the grant: one insert, which concurrent views cannot lose (see GrantViewRecord). */
  async countView(scope: TenantScope, id: Types.ObjectId, at: Date): Promise<void> {
    await this.views.insert(scope, { grantId: id, at });
  }

  /** The views of each of these grants (a grant without any is absent): one aggregation through the index. */
  async viewsOf(scope: TenantScope, ids: readonly Types.ObjectId[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const counted = await this.views.aggregate<{ _id: Types.ObjectId; views: number }>(
      scope,
      { grantId: { $in: [...ids] } },
      [{ $group: { _id: '$grantId', views: { $sum: 1 } } }],
    );
    return new Map(counted.map((row) => [String(row._id), row.views]));
  }

  /** The cascade of content projects' deletes: their grants (each recorded as `grant.deleted`), then those grants' views. */
  async deleteOfProjects(scope: TenantScope, contentProjectIds: readonly Types.ObjectId[]): Promise<void> {
    if (contentProjectIds.length === 0) return;
    const ids = (await this.records.find(scope, { contentProjectId: { $in: [...contentProjectIds] } })).map(
      (grant) => grant._id,
    );
    if (ids.length === 0) return;
    await this.records.deleteMany(
      scope,
      { contentProjectId: { $in: [...contentProjectIds] } },
      { event: 'grant.deleted' },
    );
    await this.views.deleteMany(scope, { grantId: { $in: ids } });
  }
}
