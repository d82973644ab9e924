import { Body, Controller, Delete, Get, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { TOTAL_COUNT_HEADER } from '../common/paging/content-list.query';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { CreateProjectDto } from './dto/create-project.dto';
import { ListProjectsQuery } from './dto/list-projects.query';
import { ProjectDeletedResponse, ProjectResponse } from './dto/project.response';
import { UpdateProjectDto } from './dto/update-project.dto';
import { ProjectsService } from './projects.service';

@ApiTags('projects')
@ApiBearerAuth()
@Controller()
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Post('channels/:channelId/projects')
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
      GetProject: { operationId: 'getProject', parameters: { project_id: '$response.body#/_id' } },
      UpdateProject: { operationId: 'updateProject', parameters: { projectId: '$response.body#/_id' } },
      DeleteProject: { operationId: 'deleteProject', parameters: { projectId: '$response.body#/_id' } },
    },
  })
  @ApiErrorResponses(400, 401, 404, 413, 415, 500, 503)
  createProject(@Param('channelId', ParseObjectIdPipe) channelId: string, @Body() dto: CreateProjectDto): Promise<ProjectResponse> {
    return this.projects.create(channelId, dto);
  }

  @Get('channels/:channelId/projects')
  @ApiOperation({
    summary: "List a channel's projects",
    description:
      'Filtered by `status`, `projectTypeId`, `access` and `q` (text in primaryTitle or description, any case). ' +
      'Oldest first, paged with `limit` and `skip`; the total is in `X-Total-Count`.',
  })
  @ApiOkResponse({ type: [ProjectResponse], headers: TOTAL_COUNT_HEADER, description: "The channel's matching projects" })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async listChannelProjects(
    @Param('channelId', ParseObjectIdPipe) channelId: string,
    @Query() query: ListProjectsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProjectResponse[]> {
    const { items, total } = await this.projects.listByChannel(channelId, query);
    reply.header('X-Total-Count', String(total));
    return items;
  }

  @Get('projects/:project_id')
  @ApiOperation({ summary: 'Get a project' })
  @ApiOkResponse({ type: ProjectResponse, description: 'The project' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getProject(@Param('project_id', ParseObjectIdPipe) projectId: string): Promise<ProjectResponse> {
    return this.projects.findOne(projectId);
  }

  @Put('projects/:projectId')
  @ApiOperation({
    summary: 'Update a project',
    description: 'Any subset of the fields. Another `channelId` moves the project to that channel (404 when it does not exist).',
  })
  @ApiOkResponse({ type: ProjectResponse, description: 'The updated project' })
  @ApiErrorResponses(400, 401, 404, 409, 413, 415, 500, 503)
  updateProject(@Param('projectId', ParseObjectIdPipe) projectId: string, @Body() dto: UpdateProjectDto): Promise<ProjectResponse> {
    return this.projects.update(projectId, dto);
  }

  @Delete('projects/:projectId')
  @ApiOperation({ summary: 'Delete a project', description: "Its id is removed from the channel's `projectIds`." })
  @ApiOkResponse({ type: ProjectDeletedResponse, description: 'Project deleted' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async deleteProject(@Param('projectId', ParseObjectIdPipe) projectId: string): Promise<ProjectDeletedResponse> {
    await this.projects.remove(projectId);
    return { message: 'Project deleted' };
  }
}
