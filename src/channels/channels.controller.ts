import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ContentListQuery } from '../common/paging/content-list.query';
import { ContentListResponse, withTotalCount } from '../common/paging/total-count';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { ChannelsService } from './channels.service';
import {
  ChannelCreatedResponse,
  ChannelDeletedResponse,
  ChannelResponse,
  ChannelUpdatedResponse,
} from './dto/channel.response';
import { CreateChannelDto } from './dto/create-channel.dto';
import { UpdateChannelDto } from './dto/update-channel.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const CHANNELS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'channels',
  assurance: 'accountMfa',
};

@ApiTags('channels')
@Controller('channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Access(CHANNELS_ACCESS)
  @Post()
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Create a channel',
    description:
      'Answers 200 (not 201), as the original interface does. `clientId` must name an existing, live client of the same ' +
      'platform project (else 400); `username` must be free in the project, compared without regard to case (else 409).',
  })
  @ApiOkResponse({
    type: ChannelCreatedResponse,
    description: 'Channel created',
    links: {
      GetChannel: { operationId: 'getChannel', parameters: { id: '$response.body#/id' } },
      UpdateChannel: { operationId: 'updateChannel', parameters: { id: '$response.body#/id' } },
      DeleteChannel: { operationId: 'deleteChannel', parameters: { id: '$response.body#/id' } },
      CreateProjectInChannel: { operationId: 'createProject', parameters: { channelId: '$response.body#/id' } },
      ListChannelProjects: { operationId: 'listChannelProjects', parameters: { channelId: '$response.body#/id' } },
    },
  })
  @ApiErrorResponses(400, 401, 409, 413, 415, 500, 503)
  async createChannel(@Tenant() scope: TenantScope, @Body() dto: CreateChannelDto): Promise<ChannelCreatedResponse> {
    return { message: 'Channel created', id: await this.channels.create(scope, dto) };
  }

  @Access(CHANNELS_ACCESS)
  @Get('client/:clientId')
  @ApiOperation({
    summary: "List a client's channels",
    description:
      'Oldest first, paged with `limit` and `skip`; the total is in `X-Total-Count`. A client without channels ' +
      "gives an empty array; a soft-deleted client's channels are listed too. An unknown client (another platform " +
      "project's included) is 404.",
  })
  @ContentListResponse(ChannelResponse, "The client's channels")
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async listClientChannels(
    @Tenant() scope: TenantScope,
    @Param('clientId', ParseObjectIdPipe) clientId: string,
    @Query() query: ContentListQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ChannelResponse[]> {
    return withTotalCount(reply, await this.channels.listByClient(scope, clientId, query));
  }

  @Access(CHANNELS_ACCESS)
  @Get(':id')
  @ApiOperation({ summary: 'Get a channel' })
  @ApiOkResponse({ type: ChannelResponse, description: 'The channel' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getChannel(@Tenant() scope: TenantScope, @Param('id', ParseObjectIdPipe) id: string): Promise<ChannelResponse> {
    return this.channels.findOne(scope, id);
  }

  @Access({ ...CHANNELS_ACCESS, channel: { role: 'manager', from: 'channel', param: 'id' } })
  @Put(':id')
  @ApiOperation({
    summary: 'Update a channel',
    description:
      'Any subset of the fields; `clientId` cannot change. A username taken by another channel is 409. ' +
      'Needs the channel role manager or above, or the platform role admin (403 `channel_role_required` otherwise).',
  })
  @ApiOkResponse({ type: ChannelUpdatedResponse, description: 'Channel updated' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  async updateChannel(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: UpdateChannelDto,
  ): Promise<ChannelUpdatedResponse> {
    await this.channels.update(scope, id, dto);
    return { message: 'Channel updated' };
  }

  @Access({ ...CHANNELS_ACCESS, channel: { role: 'owner', from: 'channel', param: 'id' } })
  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a channel',
    description:
      "The channel's projects, their assets, share links and grants, and its collaborators are deleted with it. " +
      'Needs the channel role owner, or the platform role admin (403 `channel_role_required` otherwise).',
  })
  @ApiOkResponse({ type: ChannelDeletedResponse, description: 'Channel and its projects deleted' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async deleteChannel(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<ChannelDeletedResponse> {
    await this.channels.remove(scope, id);
    return { message: 'Channel deleted' };
  }
}
