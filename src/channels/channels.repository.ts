import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyKeys, Model } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { type RecordedChange, TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { EventRelay } from '../events/event-relay';
import { Channel } from './channel.schema';
import { toChannelResponse } from './channels.mapper';

/** A channel's fields changed; the event has the values before. */
const CHANNEL_UPDATED: RecordedChange = { event: 'channel.updated', diff: true };
/**
 * Its list of projects changed as a project was created, moved or deleted: that project's event
 * records it, so no `channel.updated` carries the whole list (twice) at every project added.
 */
const PROJECTS_CHANGED: RecordedChange = { recordedElsewhere: true };

/** The channels of a platform project: the only code that reads or writes them. */
@Injectable()
export class ChannelsRepository {
  private readonly records: TenantRecords<Channel>;

  constructor(@InjectModel(Channel.name) model: Model<Channel>, relay: EventRelay) {
    this.records = new TenantRecords(model, relay.recorder(new Records(model), toChannelResponse));
  }

  /** Inserts a channel; a taken username in the project is a duplicate-key error. */
  insert(scope: TenantScope, fields: AnyKeys<Channel>): Promise<Channel> {
    return this.records.insert(scope, fields, ['channel.created']);
  }

  findById(scope: TenantScope, id: string): Promise<Channel | null> {
    return this.records.findById(scope, id);
  }

  existsById(scope: TenantScope, id: string): Promise<boolean> {
    return this.records.existsById(scope, id);
  }

  /** A client's channels, oldest first, one page, and how many it has in all. */
  async pageOfClient(
    scope: TenantScope,
    clientId: string,
    skip: number,
    limit: number,
  ): Promise<{ rows: Channel[]; total: number }> {
    const conditions = { clientId: toObjectId(clientId) };
    const [rows, total] = await Promise.all([
      this.records.find(scope, conditions, { sort: { _id: 1 }, skip, limit }),
      this.records.count(scope, conditions),
    ]);
    return { rows, total };
  }

  /** Sets the fields (validated as the schema says); false when there is no such channel. A taken username is a duplicate-key error. */
  async update(scope: TenantScope, id: string, set: Record<string, unknown>): Promise<boolean> {
    const _id = toObjectId(id);
    return (
      _id !== null &&
      (await this.records.updateOne(scope, { _id }, { $set: set }, { validate: true, ...CHANNEL_UPDATED })).matched > 0
    );
  }

  /** Removes the channel; true when it did. */
  async deleteById(scope: TenantScope, id: string): Promise<boolean> {
    const _id = toObjectId(id);
    return _id !== null && (await this.records.deleteOne(scope, { _id }, { event: 'channel.deleted' }));
  }

  /** Lists a content project in the channel's `projectIds`; false when the channel does not exist (any more). */
  async addProject(scope: TenantScope, channelId: string, projectId: string): Promise<boolean> {
    const _id = toObjectId(channelId);
    return (
      _id !== null &&
      (await this.records.updateOne(scope, { _id }, { $addToSet: { projectIds: projectId } }, PROJECTS_CHANGED))
        .matched > 0
    );
  }

  async removeProject(scope: TenantScope, channelId: string, projectId: string): Promise<void> {
    const _id = toObjectId(channelId);
    if (_id) await this.records.updateOne(scope, { _id }, { $pull: { projectIds: projectId } }, PROJECTS_CHANGED);
  }

  /** Takes every one of the ids out of the channel's `projectIds` in one write (a deleted subtree). */
  async removeProjects(scope: TenantScope, channelId: string, projectIds: readonly string[]): Promise<void> {
    const _id = toObjectId(channelId);
    if (_id)
      await this.records.updateOne(
        scope,
        { _id },
        { $pullAll: { projectIds: projectIds.map(toObjectId) } },
        PROJECTS_CHANGED,
      );
  }

  holdsAny(scope: TenantScope): Promise<boolean> {
    return this.records.exists(scope);
  }

  clientOwnsAny(scope: TenantScope, clientId: string): Promise<boolean> {
    const id = toObjectId(clientId);
    return id ? this.records.exists(scope, { clientId: id }) : Promise.resolve(false);
  }
}
