import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Audit } from '../audit/audit-context.decorator';
import type { AuditContext } from '../audit/audit-draft';
import { Body, Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MessageResponseDto } from '../common/dto/error-response.dto';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import type { AccountAccess } from '../tenancy/principal';
import { Account } from '../tenancy/tenancy.decorators';
import { CreatePlatformProjectDto, UpdatePlatformProjectDto } from './dto/platform-project.dto';
import { PlatformProjectEnvelope, PlatformProjectListResponse } from './dto/platform-project.response';
import { PlatformProjectsService } from './platform-projects.service';
import { Idempotent } from '../idempotency/idempotent.decorator';

/** The platform projects of the token's account. User tokens only: an API key is 403 on every route here. */
/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const PLATFORM_PROJECTS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session'],
  scope: 'account',
  assurance: 'accountMfa',
};

@ApiTags('platform projects')
@Controller('api/v1/platform/projects')
export class PlatformProjectsController {
  constructor(private readonly projects: PlatformProjectsService) {}

  @Access(PLATFORM_PROJECTS_ACCESS)
  @Get()
  @ApiOperation({
    summary: "List the account's platform projects",
    description: "Any member of the token's account. Oldest first: the default project leads.",
  })
  @ApiOkResponse({ type: PlatformProjectListResponse })
  @ApiErrorResponses(401, 403, 500, 503)
  async listPlatformProjects(@Account() account: AccountAccess): Promise<PlatformProjectListResponse> {
    return { data: await this.projects.list(account.accountId) };
  }

  @Access({ ...PLATFORM_PROJECTS_ACCESS, roles: ['admin'] })
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a platform project',
    description: 'Admins and the owner. `enabledApis` defaults to every API; unknown names are 400.',
  })
  @ApiCreatedResponse({ type: PlatformProjectEnvelope })
  @ApiErrorResponses(400, 401, 403, 413, 415, 500, 503)
  async createPlatformProject(
    @Audit() audit: AuditContext,
    @Account() account: AccountAccess,
    @Body() dto: CreatePlatformProjectDto,
  ): Promise<PlatformProjectEnvelope> {
    return { data: await this.projects.create(audit, account.accountId, dto) };
  }

  @Access(PLATFORM_PROJECTS_ACCESS)
  @Get(':id')
  @ApiOperation({
    summary: 'Get a platform project',
    description: 'Any member. A project of another account is 404, as an unknown id.',
  })
  @ApiOkResponse({ type: PlatformProjectEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async getPlatformProject(
    @Account() account: AccountAccess,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<PlatformProjectEnvelope> {
    return { data: await this.projects.get(account.accountId, id) };
  }

  @Access({ ...PLATFORM_PROJECTS_ACCESS, roles: ['admin'] })
  @Patch(':id')
  @ApiOperation({
    summary: 'Rename a platform project or change its enabled APIs',
    description:
      'Admins and the owner. Disabling an API keeps its records: its routes answer 403 in this project (for users and API keys) ' +
      'until it is enabled again, which shows the records again.',
  })
  @ApiOkResponse({ type: PlatformProjectEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 413, 415, 500, 503)
  async updatePlatformProject(
    @Audit() audit: AuditContext,
    @Account() account: AccountAccess,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: UpdatePlatformProjectDto,
  ): Promise<PlatformProjectEnvelope> {
    return { data: await this.projects.update(audit, account.accountId, id, dto) };
  }

  @Access({ ...PLATFORM_PROJECTS_ACCESS, roles: ['admin'] })
  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a platform project',
    description:
      'Admins and the owner. Only an empty project: one that still holds records of any API (enabled or not) is ' +
      '`409 Platform project is not empty`; the default project is 409 too. Its API keys are deleted with it.',
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'Platform project deleted' } })
  @ApiErrorResponses(400, 401, 403, 404, 409, 500, 503)
  async deletePlatformProject(
    @Audit() audit: AuditContext,
    @Account() account: AccountAccess,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<MessageResponseDto> {
    await this.projects.delete(audit, account.accountId, id);
    return { message: 'Platform project deleted' };
  }
}
