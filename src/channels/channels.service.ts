import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { ClientsService } from '../clients/clients.service';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { pickDefined } from '../common/fields/pick-defined';
import { ContentListQuery } from '../common/paging/content-list.query';
import type { ContentPage } from '../common/paging/total-count';
import { inScope, scopeProjectId, type TenantScope } from '../tenancy/tenant-scope';
import { Channel, usernameKey } from './channel.schema';
import { CHANNEL_DELETED, ChannelDeletedEvent } from './channels.events';
import { toChannelResponse } from './channels.mapper';
import { ChannelResponse } from './dto/channel.response';
import { CreateChannelDto, MembershipTierDto } from './dto/create-channel.dto';
import { UpdateChannelDto } from './dto/update-channel.dto';
import { insertDocument } from '../common/database/insert-document';
import { findOneInScope } from '../tenancy/find-in-scope';

export const CHANNEL_NOT_FOUND = 'Channel not found';
const UNKNOWN_CLIENT = 'clientId does not match an existing client';
const USERNAME_TAKEN = 'Channel username already taken';

/** The fields a request writes as they are; the username, lists and tiers are shaped on the way. */
const PLAIN_FIELDS = ['name', 'avatarUrl', 'role', 'membershipsEnabled', 'monetizationEnabled', 'revenue'] as const;

/** Copies only the writable fields the request carries, so nothing else reaches the update document. */
export function channelFields(dto: UpdateChannelDto): Record<string, unknown> {
  return {
    ...pickDefined(dto, PLAIN_FIELDS),
    ...(dto.username !== undefined ? { username: dto.username, usernameKey: usernameKey(dto.username) } : {}),
    ...(dto.projectIds !== undefined ? { projectIds: unique(dto.projectIds) } : {}),
    ...(dto.membershipTiers !== undefined ? { membershipTiers: dto.membershipTiers.map(toTier) } : {}),
  };
}

@Injectable()
export class ChannelsService {
  constructor(
    @InjectModel(Channel.name) private readonly channels: Model<Channel>,
    private readonly clients: ClientsService,
    private readonly events: EventEmitter2,
  ) {}

  /**
   * The client must be live in the same platform project: another project's client is as unknown as
   * a missing one. It is asked again after the insert: a hard delete of the client that started
   * meanwhile has marked it, and the channel withdraws rather than point at a deleted client.
   */
  async create(scope: TenantScope, dto: CreateChannelDto): Promise<string> {
    if (!(await this.clients.isLive(scope, dto.clientId))) throw new BadRequestException(UNKNOWN_CLIENT);
    await this.clients.assertProjectsExist(scope, dto.projectIds);
    let id: string;
    try {
      // Fields the request leaves out take the schema's defaults.
      const created = await insertDocument(this.channels, {
        ...channelFields(dto),
        clientId: dto.clientId,
        projectId: scopeProjectId(scope),
      });
      id = String(created._id);
    } catch (error) {
      throw usernameConflictOr(error);
    }
    if (!(await this.clients.acceptsChannels(scope, dto.clientId))) {
      await this.channels.deleteOne(inScope(scope, { _id: id })).exec();
      throw new BadRequestException(UNKNOWN_CLIENT);
    }
    return id;
  }

  async listByClient(scope: TenantScope, clientId: string, page: ContentListQuery): Promise<ContentPage<ChannelResponse>> {
    const filter = inScope(scope, { clientId });
    const [rows, total] = await Promise.all([
      this.channels.find(filter).sort({ _id: 1 }).skip(page.skip).limit(page.limit).lean<Channel[]>().exec(),
      this.channels.countDocuments(filter).exec(),
    ]);
    return { items: rows.map(toChannelResponse), total };
  }

  async findOne(scope: TenantScope, id: string): Promise<ChannelResponse> {
    const channel = await findOneInScope(this.channels, scope, id);
    if (!channel) throw new NotFoundException(CHANNEL_NOT_FOUND);
    return toChannelResponse(channel);
  }

  async update(scope: TenantScope, id: string, dto: UpdateChannelDto): Promise<void> {
    await this.clients.assertProjectsExist(scope, dto.projectIds);
    let matched: number;
    try {
      const result = await this.channels
        .updateOne(inScope(scope, { _id: id }), { $set: channelFields(dto) }, { runValidators: true })
        .exec();
      matched = result.matchedCount;
    } catch (error) {
      throw usernameConflictOr(error);
    }
    if (matched === 0) throw new NotFoundException(CHANNEL_NOT_FOUND);
  }

  /**
   * Deletes the channel, then (awaited) its projects through the CHANNEL_DELETED event.
   *
   * Channel first: a project created concurrently either is inserted before the cascade runs (and
   * is removed by it) or finds its channel gone when it links itself, and undoes itself. Should the
   * process stop between the two steps, a retried DELETE answers 404 but still runs the cascade,
   * so the channel's leftover projects are removed then.
   */
  async remove(scope: TenantScope, id: string): Promise<void> {
    const { deletedCount } = await this.channels.deleteOne(inScope(scope, { _id: id })).exec();
    const event: ChannelDeletedEvent = { scope, channelId: id };
    await this.events.emitAsync(CHANNEL_DELETED, event);
    if (deletedCount === 0) throw new NotFoundException(CHANNEL_NOT_FOUND);
  }

  // ---- for child modules (projects) and the clients event ----

  async exists(scope: TenantScope, channelId: string): Promise<boolean> {
    return (await this.channels.exists(inScope(scope, { _id: channelId })).exec()) !== null;
  }

  /** Adds a project to the channel's `projectIds`; false when the channel does not exist (any more). */
  async addProject(scope: TenantScope, channelId: string, projectId: string): Promise<boolean> {
    const result = await this.channels.updateOne(inScope(scope, { _id: channelId }), { $addToSet: { projectIds: projectId } }).exec();
    return result.matchedCount > 0;
  }

  async removeProject(scope: TenantScope, channelId: string, projectId: string): Promise<void> {
    await this.channels.updateOne(inScope(scope, { _id: channelId }), { $pull: { projectIds: projectId } }).exec();
  }

  /** Whether the scope's project still holds any channel (a platform project delete asks). */
  async holdsRecords(scope: TenantScope): Promise<boolean> {
    return (await this.channels.exists(inScope(scope, {})).exec()) !== null;
  }

  async clientOwnsChannels(scope: TenantScope, clientId: string): Promise<boolean> {
    return (await this.channels.exists(inScope(scope, { clientId })).exec()) !== null;
  }
}

function unique(ids: string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

function toTier(tier: MembershipTierDto) {
  return {
    name: tier.name,
    ...(tier.description != null ? { description: tier.description } : {}),
    price: tier.price,
    ...(tier.features !== undefined ? { features: tier.features } : {}),
  };
}

function usernameConflictOr(error: unknown): unknown {
  // Inside a project the username key is the only unique field besides `_id`, which the database generates.
  return isDuplicateKey(error) ? new ConflictException(USERNAME_TAKEN) : error;
}
