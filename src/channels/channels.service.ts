import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InProcessEmitter } from '../in-process-events/in-process-events';
import { ClientsService } from '../clients/clients.service';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { pickDefined } from '../common/fields/pick-defined';
import { ContentListQuery } from '../common/paging/content-list.query';
import type { ContentPage } from '../common/paging/total-count';
import type { TenantScope } from '../tenancy/tenant-scope';
import { usernameKey } from './channel.schema';
import { ChannelsRepository } from './channels.repository';
import {
  CHANNEL_CREATED,
  CHANNEL_DELETED,
  CHANNEL_DELETING,
  type ChannelCreatedEvent,
  ChannelDeletedEvent,
} from './channels.events';
import { toChannelResponse } from './channels.mapper';
import { ChannelResponse } from './dto/channel.response';
import { CreateChannelDto, MembershipTierDto } from './dto/create-channel.dto';
import { UpdateChannelDto } from './dto/update-channel.dto';

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
    private readonly channels: ChannelsRepository,
    private readonly clients: ClientsService,
    private readonly events: InProcessEmitter,
  ) {}

  /**
   * The creator becomes the channel's owner (CHANNEL_CREATED, awaited).
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
      const created = await this.channels.insert(scope, { ...channelFields(dto), clientId: dto.clientId });
      id = String(created._id);
    } catch (error) {
      throw usernameConflictOr(error);
    }
    if (!(await this.clients.acceptsChannels(scope, dto.clientId))) {
      await this.channels.deleteById(scope, id);
      throw new BadRequestException(UNKNOWN_CLIENT);
    }
    const event: ChannelCreatedEvent = { scope, channelId: id };
    try {
      await this.events.emitAsync(CHANNEL_CREATED, event);
    } catch (error) {
      // A channel without its owner would answer its creator 403: withdrawn, as if never made.
      await this.remove(scope, id).catch(() => undefined);
      throw error;
    }
    return id;
  }

  async listByClient(
    scope: TenantScope,
    clientId: string,
    page: ContentListQuery,
  ): Promise<ContentPage<ChannelResponse>> {
    // A soft-deleted client's channels are still listed: they are what keeps it from a hard delete.
    const [, { rows, total }] = await Promise.all([
      this.clients.assertExists(scope, clientId),
      this.channels.pageOfClient(scope, clientId, page.skip, page.limit),
    ]);
    return { items: rows.map(toChannelResponse), total };
  }

  async findOne(scope: TenantScope, id: string): Promise<ChannelResponse> {
    const channel = await this.channels.findById(scope, id);
    if (!channel) throw new NotFoundException(CHANNEL_NOT_FOUND);
    return toChannelResponse(channel);
  }

  /** A caller's update (the channel's managers' or a platform admin's: their route's access policy). */
  async update(scope: TenantScope, id: string, dto: UpdateChannelDto): Promise<void> {
    await this.clients.assertProjectsExist(scope, dto.projectIds);
    let matched: boolean;
    try {
      matched = await this.channels.update(scope, id, channelFields(dto));
    } catch (error) {
      throw usernameConflictOr(error);
    }
    if (!matched) throw new NotFoundException(CHANNEL_NOT_FOUND);
  }

  /**
   * Deletes the channel, then (awaited) its projects through the CHANNEL_DELETED event; the
   * cascade is recorded before the channel goes (CHANNEL_DELETING), so whatever stops it, any
   * instance finishes it.
   *
   * Channel first: a project created concurrently either is inserted before the cascade runs (and
   * is removed by it) or finds its channel gone when it links itself, and undoes itself. Should the
   * process stop between the two steps, a retried DELETE answers 404 but still runs the cascade,
   * so the channel's leftover projects are removed then.
   */
  async remove(scope: TenantScope, id: string): Promise<void> {
    const event: ChannelDeletedEvent = { scope, channelId: id };
    await this.events.emitAsync(CHANNEL_DELETING, event);
    const deleted = await this.channels.deleteById(scope, id);
    await this.events.emitAsync(CHANNEL_DELETED, event);
    if (!deleted) throw new NotFoundException(CHANNEL_NOT_FOUND);
  }

  // ---- for child modules (projects) and the clients event ----

  /**
   * Deletes the channel's record alone (`channel.deleted`), without its events to the modules
   * below: for the projects module's cascade of a channel, which runs what they do itself. False
   * when it was gone already.
   */
  deleteRecord(scope: TenantScope, channelId: string): Promise<boolean> {
    return this.channels.deleteById(scope, channelId);
  }

  exists(scope: TenantScope, channelId: string): Promise<boolean> {
    return this.channels.existsById(scope, channelId);
  }

  /** Adds a project to the channel's `projectIds`; false when the channel does not exist (any more). */
  addProject(scope: TenantScope, channelId: string, projectId: string): Promise<boolean> {
    return this.channels.addProject(scope, channelId, projectId);
  }

  removeProject(scope: TenantScope, channelId: string, projectId: string): Promise<void> {
    return this.channels.removeProject(scope, channelId, projectId);
  }

  removeProjects(scope: TenantScope, channelId: string, projectIds: readonly string[]): Promise<void> {
    return projectIds.length === 1
      ? this.channels.removeProject(scope, channelId, projectIds[0])
      : this.channels.removeProjects(scope, channelId, projectIds);
  }

  /** Whether the scope's project still holds any channel (a platform project delete asks). */
  holdsRecords(scope: TenantScope): Promise<boolean> {
    return this.channels.holdsAny(scope);
  }

  clientOwnsChannels(scope: TenantScope, clientId: string): Promise<boolean> {
    return this.channels.clientOwnsAny(scope, clientId);
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
