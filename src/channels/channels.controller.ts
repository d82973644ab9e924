import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ContentListQuery, TOTAL_COUNT_HEADER } from '../common/paging/content-list.query';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { ChannelsService } from './channels.service';
import { ChannelCreatedResponse, ChannelDeletedResponse, ChannelResponse, ChannelUpdatedResponse } from './dto/channel.response';
import { CreateChannelDto } from './dto/create-channel.dto';
import { UpdateChannelDto } from './dto/update-channel.dto';

@ApiTags('channels')
@ApiBearerAuth()
@Controller('channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Post()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Create a channel',
    description:
      'Answers 200 (not 201), as the original interface does. `clientId` must name an existing, live client (else 400); ' +
      '`username` must be free, compared without regard to case (else 409).',
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
  async createChannel(@Body() dto: CreateChannelDto): Promise<ChannelCreatedResponse> {
    return { message: 'Channel created', id: await this.channels.create(dto) };
  }

  @Get('client/:clientId')
  @ApiOperation({
    summary: "List a client's channels",
    description: 'Oldest first, paged with `limit` and `skip`; the total is in `X-Total-Count`. A client without channels (or an unknown one) gives an empty array.',
  })
  @ApiOkResponse({ type: [ChannelResponse], headers: TOTAL_COUNT_HEADER, description: "The client's channels" })
  @ApiErrorResponses(400, 401, 500, 503)
  async listClientChannels(
    @Param('clientId', ParseObjectIdPipe) clientId: string,
    @Query() query: ContentListQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ChannelResponse[]> {
    const { items, total } = await this.channels.listByClient(clientId, query);
    reply.header('X-Total-Count', String(total));
    return items;
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a channel' })
  @ApiOkResponse({ type: ChannelResponse, description: 'The channel' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getChannel(@Param('id', ParseObjectIdPipe) id: string): Promise<ChannelResponse> {
    return this.channels.findOne(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a channel',
    description: 'Any subset of the fields; `clientId` cannot change. A username taken by another channel is 409.',
  })
  @ApiOkResponse({ type: ChannelUpdatedResponse, description: 'Channel updated' })
  @ApiErrorResponses(400, 401, 404, 409, 413, 415, 500, 503)
  async updateChannel(@Param('id', ParseObjectIdPipe) id: string, @Body() dto: UpdateChannelDto): Promise<ChannelUpdatedResponse> {
    await this.channels.update(id, dto);
    return { message: 'Channel updated' };
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a channel', description: "The channel's projects are deleted with it." })
  @ApiOkResponse({ type: ChannelDeletedResponse, description: 'Channel and its projects deleted' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async deleteChannel(@Param('id', ParseObjectIdPipe) id: string): Promise<ChannelDeletedResponse> {
    await this.channels.remove(id);
    return { message: 'Channel deleted' };
  }
}
