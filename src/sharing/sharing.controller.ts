import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { MessageResponseDto } from '../common/dto/error-response.dto';
import { ContentListQuery } from '../common/paging/content-list.query';
import { ContentListResponse, withTotalCount } from '../common/paging/total-count';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { CreateGrantDto } from './dto/create-grant.dto';
import { CreateShareLinkDto } from './dto/create-share-link.dto';
import { GrantView } from './dto/grant.response';
import { CreatedShareLinkView, ShareLinkView } from './dto/share-link.response';
import { SharingService } from './sharing.service';

/** Who may share a project (CONTENT.md): said on every route that does. */
const MANAGER_NEEDED =
  "Needs the channel role manager or above in the project's channel, or the platform role admin (403 `channel_role_required` otherwise); " +
  'an API key acts as admin.';

/** Share links and grants of a content project, managed like the project itself (users and secret keys of the projects API). */
/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const SHARING_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'projects',
  assurance: 'accountMfa',
};

@ApiTags('sharing')
@Controller('projects/:projectId')
export class SharingController {
  constructor(private readonly sharing: SharingService) {}

  @Access({ ...SHARING_ACCESS, channel: { role: 'manager', from: 'project', param: 'projectId' } })
  @Post('share-links')
  @Idempotent()
  @ApiOperation({
    summary: 'Create a share link of a project',
    description:
      'The link shows the project and its sub-projects to whoever holds its token, through the `/viewer` routes (with a publishable key), ' +
      'where the project or an ancestor is `linkPrivate`. The token is in this answer only: it is stored as a hash. ' +
      'With a `password`, viewers also send it in `X-Share-Password` (401 otherwise; after too many wrong ones, 429). With `expiresAt`, the link stops then (404). ' +
      MANAGER_NEEDED,
  })
  @ApiCreatedResponse({ type: CreatedShareLinkView, description: 'The link, with its token shown once' })
  @ApiErrorResponses(400, 401, 403, 404, 413, 415, 500, 503)
  createShareLink(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Body() dto: CreateShareLinkDto,
  ): Promise<CreatedShareLinkView> {
    return this.sharing.createShareLink(scope, projectId, dto);
  }

  @Access(SHARING_ACCESS)
  @Get('share-links')
  @ApiOperation({
    summary: "List a project's share links",
    description:
      'Newest first, revoked and expired ones included, with their `views`; never a token. Paged with `limit` and `skip`; the total in `X-Total-Count`.',
  })
  @ContentListResponse(ShareLinkView, "The project's share links")
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async listShareLinks(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Query() query: ContentListQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ShareLinkView[]> {
    return withTotalCount(reply, await this.sharing.listShareLinks(scope, projectId, query));
  }

  @Access({ ...SHARING_ACCESS, channel: { role: 'manager', from: 'project', param: 'projectId' } })
  @Delete('share-links/:shareLinkId')
  @ApiOperation({
    summary: 'Revoke a share link',
    description: `Viewers get 404 through it from now on. Revoking a revoked link answers the same. ${MANAGER_NEEDED}`,
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Share link revoked' } })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async revokeShareLink(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Param('shareLinkId', ParseObjectIdPipe) shareLinkId: string,
  ): Promise<MessageResponseDto> {
    await this.sharing.revokeShareLink(scope, projectId, shareLinkId);
    return { message: 'Share link revoked' };
  }

  @Access({ ...SHARING_ACCESS, channel: { role: 'manager', from: 'project', param: 'projectId' } })
  @Post('grants')
  @Idempotent()
  @ApiOperation({
    summary: 'Grant a person access to a project',
    description:
      'To a user (`userId`) or to an email address (`email`: whoever has, or later signs up with, it). The grant opens the project and its ' +
      'sub-projects, where the project or an ancestor is `permissions`, to that user reading the `/viewer` routes with their access token in ' +
      '`X-Viewer-Token`. A grant to an email reaches a user only once that user has verified the address. With `expiresAt`, it ends then. ' +
      MANAGER_NEEDED,
  })
  @ApiCreatedResponse({ type: GrantView, description: 'The grant' })
  @ApiErrorResponses(400, 401, 403, 404, 413, 415, 500, 503)
  createGrant(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Body() dto: CreateGrantDto,
  ): Promise<GrantView> {
    return this.sharing.createGrant(scope, projectId, dto);
  }

  @Access(SHARING_ACCESS)
  @Get('grants')
  @ApiOperation({
    summary: "List a project's grants",
    description:
      'Newest first, revoked and expired ones included. Paged with `limit` and `skip`; the total in `X-Total-Count`.',
  })
  @ContentListResponse(GrantView, "The project's grants")
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async listGrants(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Query() query: ContentListQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<GrantView[]> {
    return withTotalCount(reply, await this.sharing.listGrants(scope, projectId, query));
  }

  @Access({ ...SHARING_ACCESS, channel: { role: 'manager', from: 'project', param: 'projectId' } })
  @Delete('grants/:grantId')
  @ApiOperation({
    summary: 'Revoke a grant',
    description: `The grant ends at once. Revoking a revoked grant answers the same. ${MANAGER_NEEDED}`,
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Grant revoked' } })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async revokeGrant(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Param('grantId', ParseObjectIdPipe) grantId: string,
  ): Promise<MessageResponseDto> {
    await this.sharing.revokeGrant(scope, projectId, grantId);
    return { message: 'Grant revoked' };
  }
}
