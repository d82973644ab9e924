import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model, Types } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { EventRelay } from '../events/event-relay';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Collaborator, type ChannelRole } from './collaborator.schema';
import { toCollaboratorResponse } from './collaborators.mapper';

/** The channels' collaborators: the only code that reads or writes them. */
@Injectable()
export class CollaboratorsRepository {
  private readonly records: TenantRecords<Collaborator>;

  constructor(@InjectModel(Collaborator.name) model: Model<Collaborator>, relay: EventRelay) {
    this.records = new TenantRecords(model, relay.recorder(new Records(model), toCollaboratorResponse));
  }

  /** A user present in the channel already is a duplicate-key error. */
  insert(
    scope: TenantScope,
    channelId: string,
    userId: string,
    role: ChannelRole,
    expiresAt: Date | null,
    _id?: Types.ObjectId,
  ): Promise<Collaborator> {
    return this.records.insert(scope, { ...(_id ? { _id } : {}), channelId, userId, role, expiresAt }, [
      'collaborator.added',
    ]);
  }

  /** Adds the user unless present (the channel's creator, the migration); records the add when it inserted. */
  async insertUnlessPresent(
    scope: TenantScope,
    channelId: string,
    userId: string,
    role: ChannelRole,
  ): Promise<boolean> {
    if (await this.find(scope, channelId, userId)) return false;
    await this.insert(scope, channelId, userId, role, null);
    return true;
  }

  find(scope: TenantScope, channelId: string, userId: string): Promise<Collaborator | null> {
    const channel = toObjectId(channelId);
    const user = toObjectId(userId);
    return channel && user ? this.records.findOne(scope, { channelId: channel, userId: user }) : Promise.resolve(null);
  }

  /** The user's records in any of these channels: one read, whatever their number. */
  findInChannels(scope: TenantScope, channelIds: readonly string[], userId: string): Promise<Collaborator[]> {
    const user = toObjectId(userId);
    return user
      ? this.records.find(scope, { channelId: { $in: channelIds.map(toObjectId) }, userId: user })
      : Promise.resolve([]);
  }

  /** Every record of the user in the scope, whichever channel. */
  ofUser(scope: TenantScope, userId: string): Promise<Collaborator[]> {
    const user = toObjectId(userId);
    return user ? this.records.find(scope, { userId: user }) : Promise.resolve([]);
  }

  /** Whether the channel has an owner other than `userId` whose role has no end. */
  async hasLastingOwnerBesides(scope: TenantScope, channelId: string, userId: string): Promise<boolean> {
    const channel = toObjectId(channelId);
    const user = toObjectId(userId);
    if (!channel || !user) return false;
    return (
      (await this.records.count(scope, { channelId: channel, role: 'owner', expiresAt: null, userId: { $ne: user } })) >
      0
    );
  }

  async page(
    scope: TenantScope,
    channelId: string,
    skip: number,
    limit: number,
  ): Promise<{ rows: Collaborator[]; total: number }> {
    const conditions = { channelId: toObjectId(channelId) };
    const [rows, total] = await Promise.all([
      this.records.find(scope, conditions, { sort: { userId: 1 }, skip, limit }),
      this.records.count(scope, conditions),
    ]);
    return { rows, total };
  }

  change(
    scope: TenantScope,
    channelId: string,
    userId: string,
    set: Record<string, unknown>,
  ): Promise<Collaborator | null> {
    const channel = toObjectId(channelId);
    const user = toObjectId(userId);
    if (!channel || !user) return Promise.resolve(null);
    return this.records.updateAndGet(
      scope,
      { channelId: channel, userId: user },
      { $set: set },
      { validate: true, event: 'collaborator.changed', diff: true },
    );
  }

  async remove(scope: TenantScope, channelId: string, userId: string): Promise<boolean> {
    const channel = toObjectId(channelId);
    const user = toObjectId(userId);
    return (
      channel !== null &&
      user !== null &&
      (await this.records.deleteOne(scope, { channelId: channel, userId: user }, { event: 'collaborator.removed' }))
    );
  }

  /** The cascade of a channel delete: each record removed recorded as `collaborator.removed`. */
  async removeAllOfChannel(scope: TenantScope, channelId: string): Promise<void> {
    const channel = toObjectId(channelId);
    if (channel) await this.records.deleteMany(scope, { channelId: channel }, { event: 'collaborator.removed' });
  }
}
