import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { ClientsService } from '../clients/clients.service';
import { ContentListQuery } from '../common/paging/content-list.query';
import { Channel, usernameKey } from './channel.schema';
import { toChannelResponse } from './channels.mapper';
import { CHANNEL_DELETED, ChannelDeletedEvent } from './channels.events';
import { ChannelResponse } from './dto/channel.response';
import { CreateChannelDto, MembershipTierDto } from './dto/create-channel.dto';
import { UpdateChannelDto } from './dto/update-channel.dto';

export const CHANNEL_NOT_FOUND = 'Channel not found';
const USERNAME_TAKEN = 'Channel username already taken';

export interface ChannelList {
  items: ChannelResponse[];
  total: number;
}

@Injectable()
export class ChannelsService {
  constructor(
    @InjectModel(Channel.name) private readonly channels: Model<Channel>,
    private readonly clients: ClientsService,
    private readonly events: EventEmitter2,
  ) {}

  async create(dto: CreateChannelDto): Promise<string> {
    if (!(await this.clients.isLive(dto.clientId))) {
      throw new BadRequestException('clientId does not match an existing client');
    }
    try {
      const created = await this.channels.create({
        clientId: dto.clientId,
        name: dto.name,
        username: dto.username,
        usernameKey: usernameKey(dto.username),
        avatarUrl: dto.avatarUrl,
        role: dto.role,
        projectIds: unique(dto.projectIds ?? []),
        membershipsEnabled: dto.membershipsEnabled ?? false,
        membershipTiers: (dto.membershipTiers ?? []).map(toTier),
        monetizationEnabled: dto.monetizationEnabled ?? false,
        revenue: dto.revenue ?? 0,
      });
      return String(created._id);
    } catch (error) {
      throw usernameConflictOr(error);
    }
  }

  async listByClient(clientId: string, page: ContentListQuery): Promise<ChannelList> {
    const filter = { clientId };
    const [rows, total] = await Promise.all([
      this.channels.find(filter).sort({ _id: 1 }).skip(page.skip).limit(page.limit).lean<Channel[]>().exec(),
      this.channels.countDocuments(filter).exec(),
    ]);
    return { items: rows.map(toChannelResponse), total };
  }

  async findOne(id: string): Promise<ChannelResponse> {
    const channel = await this.channels.findById(id).lean<Channel>().exec();
    if (!channel) throw new NotFoundException(CHANNEL_NOT_FOUND);
    return toChannelResponse(channel);
  }

  async update(id: string, dto: UpdateChannelDto): Promise<void> {
    // Built field by field, so nothing outside the DTO can reach the update document.
    const set: Record<string, unknown> = {};
    if (dto.name !== undefined) set.name = dto.name;
    if (dto.username !== undefined) {
      set.username = dto.username;
      set.usernameKey = usernameKey(dto.username);
    }
    if (dto.avatarUrl !== undefined) set.avatarUrl = dto.avatarUrl;
    if (dto.role !== undefined) set.role = dto.role;
    if (dto.projectIds !== undefined) set.projectIds = unique(dto.projectIds);
    if (dto.membershipsEnabled !== undefined) set.membershipsEnabled = dto.membershipsEnabled;
    if (dto.membershipTiers !== undefined) set.membershipTiers = dto.membershipTiers.map(toTier);
    if (dto.monetizationEnabled !== undefined) set.monetizationEnabled = dto.monetizationEnabled;
    if (dto.revenue !== undefined) set.revenue = dto.revenue;

    let matched: number;
    try {
      const result = await this.channels.updateOne({ _id: id }, { $set: set }, { runValidators: true }).exec();
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
  async remove(id: string): Promise<void> {
    const { deletedCount } = await this.channels.deleteOne({ _id: id }).exec();
    const event: ChannelDeletedEvent = { channelId: id };
    await this.events.emitAsync(CHANNEL_DELETED, event);
    if (deletedCount === 0) throw new NotFoundException(CHANNEL_NOT_FOUND);
  }

  // ---- for child modules (projects) and the clients event ----

  async exists(channelId: string): Promise<boolean> {
    return (await this.channels.exists({ _id: channelId }).exec()) !== null;
  }

  /** Adds a project to the channel's `projectIds`; false when the channel does not exist (any more). */
  async addProject(channelId: string, projectId: string): Promise<boolean> {
    const result = await this.channels.updateOne({ _id: channelId }, { $addToSet: { projectIds: projectId } }).exec();
    return result.matchedCount > 0;
  }

  async removeProject(channelId: string, projectId: string): Promise<void> {
    await this.channels.updateOne({ _id: channelId }, { $pull: { projectIds: projectId } }).exec();
  }

  async clientOwnsChannels(clientId: string): Promise<boolean> {
    return (await this.channels.exists({ clientId }).exec()) !== null;
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
  // The username key is the only unique field besides `_id`, which the database generates.
  return isDuplicateKey(error) ? new ConflictException(USERNAME_TAKEN) : error;
}
