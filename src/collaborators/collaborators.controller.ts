import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ContentListQuery } from '../common/paging/content-list.query';
import { ContentListResponse, withTotalCount } from '../common/paging/total-count';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { CollaboratorsService } from './collaborators.service';
import { AddCollaboratorDto, ChangeCollaboratorDto } from './dto/add-collaborator.dto';
import { CollaboratorRemovedResponse, CollaboratorResponse } from './dto/collaborator.response';

const MANAGED_BY =
  'Needs the channel role owner, or the platform role admin (403 `channel_role_required` otherwise, naming the role).';
const KEEPS_OWNER =
  'A channel keeps an owner without an end: taking the role from the last one, giving them an end or removing them is 409 `last_channel_owner`.';

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const COLLABORATORS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'channels',
  assurance: 'accountMfa',
};

@ApiTags('channels')
@Controller('channels/:channelId/collaborators')
export class CollaboratorsController {
  constructor(private readonly collaborators: CollaboratorsService) {}

  @Access({ ...COLLABORATORS_ACCESS, channel: { role: 'owner', from: 'channel', param: 'channelId' } })
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Add a collaborator to a channel',
    description:
      'Gives a member of the account a role in the channel (owner, manager, editor or viewer), until `expiresAt` when given. ' +
      `A user who is no member of the account is 404; one who is a collaborator already, 409. ${MANAGED_BY}`,
  })
  @ApiCreatedResponse({
    type: CollaboratorResponse,
    description: 'The collaborator',
    links: {
      ChangeChannelCollaborator: {
        operationId: 'changeChannelCollaborator',
        parameters: { channelId: '$response.body#/channelId', userId: '$response.body#/userId' },
      },
      RemoveChannelCollaborator: {
        operationId: 'removeChannelCollaborator',
        parameters: { channelId: '$response.body#/channelId', userId: '$response.body#/userId' },
      },
    },
  })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  addChannelCollaborator(
    @Tenant() scope: TenantScope,
    @Param('channelId', ParseObjectIdPipe) channelId: string,
    @Body() dto: AddCollaboratorDto,
  ): Promise<CollaboratorResponse> {
    return this.collaborators.add(scope, channelId, dto);
  }

  @Access(COLLABORATORS_ACCESS)
  @Get()
  @ApiOperation({
    summary: "List a channel's collaborators",
    description:
      'Expired ones included (their `expiresAt` says so). By user id, paged with `limit` and `skip`; the total is in `X-Total-Count`.',
  })
  @ContentListResponse(CollaboratorResponse, "The channel's collaborators")
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async listChannelCollaborators(
    @Tenant() scope: TenantScope,
    @Param('channelId', ParseObjectIdPipe) channelId: string,
    @Query() query: ContentListQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CollaboratorResponse[]> {
    return withTotalCount(reply, await this.collaborators.list(scope, channelId, query));
  }

  @Access({ ...COLLABORATORS_ACCESS, channel: { role: 'owner', from: 'channel', param: 'channelId' } })
  @Patch(':userId')
  @ApiOperation({ summary: "Change a collaborator's role or end", description: `${MANAGED_BY} ${KEEPS_OWNER}` })
  @ApiOkResponse({ type: CollaboratorResponse, description: 'The collaborator after the change' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  changeChannelCollaborator(
    @Tenant() scope: TenantScope,
    @Param('channelId', ParseObjectIdPipe) channelId: string,
    @Param('userId', ParseObjectIdPipe) userId: string,
    @Body() dto: ChangeCollaboratorDto,
  ): Promise<CollaboratorResponse> {
    return this.collaborators.change(scope, channelId, userId, dto);
  }

  @Access({ ...COLLABORATORS_ACCESS, channel: { role: 'owner', from: 'channel', param: 'channelId' } })
  @Delete(':userId')
  @ApiOperation({ summary: 'Remove a collaborator from a channel', description: `${MANAGED_BY} ${KEEPS_OWNER}` })
  @ApiOkResponse({ type: CollaboratorRemovedResponse, description: 'Collaborator removed' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 500, 503)
  async removeChannelCollaborator(
    @Tenant() scope: TenantScope,
    @Param('channelId', ParseObjectIdPipe) channelId: string,
    @Param('userId', ParseObjectIdPipe) userId: string,
  ): Promise<CollaboratorRemovedResponse> {
    await this.collaborators.remove(scope, channelId, userId);
    return { message: 'Collaborator removed' };
  }
}
