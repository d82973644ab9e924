import { Body, Controller, Delete, Get, Param, Post, Put, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ContentListResponse, withTotalCount } from '../common/paging/total-count';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { PlatformApi, Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { CreateProjectDto } from './dto/create-project.dto';
import { ListProjectsQuery } from './dto/list-projects.query';
import { ProjectDeletedResponse, ProjectResponse } from './dto/project.response';
import { UpdateProjectDto } from './dto/update-project.dto';
import { ProjectsService } from './projects.service';
import { Idempotent } from '../idempotency/idempotent.decorator';

@ApiTags('projects')
@ApiBearerAuth()
@PlatformApi('projects')
@Controller()
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Post('channels/:channelId/projects')

  @Idempotent()
  @ApiOperation({
    summary: 'Create a project in a channel',
    description:
      "The project's id is added to the channel's `projectIds`. A `channelId` in the body must equal the path's. " +
      '`status` defaults to draft, `access` to public, lists to [].',
  })
  @ApiCreatedResponse({
    type: ProjectResponse,
    description: 'The created project',
    links: {
      GetProject: { operationId: 'getProject', parameters: { projectId: '$response.body#/_id' } },
      UpdateProject: { operationId: 'updateProject', parameters: { projectId: '$response.body#/_id' } },
      DeleteProject: { operationId: 'deleteProject', parameters: { projectId: '$response.body#/_id' } },
    },
  })
  @ApiErrorResponses(400, 401, 404, 413, 415, 500, 503)
  createProject(
    @Tenant() scope: TenantScope,
    @Param('channelId', ParseObjectIdPipe) channelId: string,
    @Body() dto: CreateProjectDto,
  ): Promise<ProjectResponse> {
    return this.projects.create(scope, channelId, dto);
  }

  @Get('channels/:channelId/projects')
  @ApiOperation({
    summary: "List a channel's projects",
    description:
      'Filtered by `status`, `projectTypeId`, `access` and `q` (text in primaryTitle or description, any case). ' +
      'Oldest first, paged with `limit` and `skip`; the total is in `X-Total-Count`.',
  })
  @ContentListResponse(ProjectResponse, "The channel's matching projects")
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async listChannelProjects(
    @Tenant() scope: TenantScope,
    @Param('channelId', ParseObjectIdPipe) channelId: string,
    @Query() query: ListProjectsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProjectResponse[]> {
    return withTotalCount(reply, await this.projects.listByChannel(scope, channelId, query));
  }

  // The specification names this parameter project_id, and PUT's and DELETE's projectId: one name in
  // the document (generators refuse two paths that differ only by it), the specification's in the message.
  @Get('projects/:projectId')
  @ApiOperation({ summary: 'Get a project' })
  @ApiOkResponse({ type: ProjectResponse, description: 'The project' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getProject(@Tenant() scope: TenantScope, @Param('projectId', ParseObjectIdPipe.labelled('project_id')) projectId: string): Promise<ProjectResponse> {
    return this.projects.findOne(scope, projectId);
  }

  @Put('projects/:projectId')
  @ApiOperation({
    summary: 'Update a project',
    description: 'Any subset of the fields. Another `channelId` moves the project to that channel (404 when it does not exist).',
  })
  @ApiOkResponse({ type: ProjectResponse, description: 'The updated project' })
  @ApiErrorResponses(400, 401, 404, 409, 413, 415, 500, 503)
  updateProject(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Body() dto: UpdateProjectDto,
  ): Promise<ProjectResponse> {
    return this.projects.update(scope, projectId, dto);
  }

  @Delete('projects/:projectId')
  @ApiOperation({ summary: 'Delete a project', description: "Its id is removed from the channel's `projectIds`." })
  @ApiOkResponse({ type: ProjectDeletedResponse, description: 'Project deleted' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async deleteProject(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
  ): Promise<ProjectDeletedResponse> {
    await this.projects.remove(scope, projectId);
    return { message: 'Project deleted' };
  }
}
