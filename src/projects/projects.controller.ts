import { Access } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, Param, Post, Put, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ContentListResponse, withTotalCount } from '../common/paging/total-count';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { CreateProjectDto } from './dto/create-project.dto';
import { ListProjectsQuery } from './dto/list-projects.query';
import { DeleteProjectQuery } from './dto/delete-project.query';
import { ProjectDeletedResponse, ProjectResponse, ProjectTreeResponse } from './dto/project.response';
import { MAX_TREE_NODES } from './project.schema';
import { UpdateProjectDto } from './dto/update-project.dto';
import { ProjectsService } from './projects.service';
import { DELETE_PROJECT_ROLE, PROJECTS_ACCESS, UPDATE_PROJECT_ROLE } from './projects.access';
import { Idempotent } from '../idempotency/idempotent.decorator';

/** A 422 of the tree's rules (the shared one speaks of Idempotency-Key reuse, which these routes also answer with it). */
function ApiTreeRefusal(description: string, message: string) {
  return ApiUnprocessableEntityResponse({
    description,
    type: ErrorResponseDto,
    example: { statusCode: 422, error: 'Unprocessable Entity', message },
  });
}

/** From a project to what is below it. */
const CHILD_LINKS = {
  ListProjectChildren: { operationId: 'listProjectChildren', parameters: { projectId: '$response.body#/_id' } },
  GetProjectTree: { operationId: 'getProjectTree', parameters: { projectId: '$response.body#/_id' } },
};

@ApiTags('projects')
@Controller()
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Access({ ...PROJECTS_ACCESS, channel: { role: 'editor', from: 'channel', param: 'channelId' } })
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
      ...CHILD_LINKS,
    },
  })
  @ApiTreeRefusal(
    'The parent is in another channel, the tree would be deeper than 4 levels, or the Idempotency-Key was used with another request body',
    'A project tree has at most 4 levels',
  )
  @ApiErrorResponses(400, 401, 403, 404, 413, 415, 500, 503)
  createProject(
    @Tenant() scope: TenantScope,
    @Param('channelId', ParseObjectIdPipe) channelId: string,
    @Body() dto: CreateProjectDto,
  ): Promise<ProjectResponse> {
    return this.projects.create(scope, channelId, dto);
  }

  @Access(PROJECTS_ACCESS)
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

  @Access(PROJECTS_ACCESS)
  // The specification names this parameter project_id, and PUT's and DELETE's projectId: one name in
  // the document (generators refuse two paths that differ only by it), the specification's in the message.
  @Get('projects/:projectId')
  @ApiOperation({ summary: 'Get a project' })
  @ApiOkResponse({ type: ProjectResponse, description: 'The project', links: CHILD_LINKS })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getProject(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe.labelled('project_id')) projectId: string,
  ): Promise<ProjectResponse> {
    return this.projects.findOne(scope, projectId);
  }

  @Access(PROJECTS_ACCESS)
  @Get('projects/:projectId/children')
  @ApiOperation({
    summary: "List a project's sub-projects",
    description:
      'Its direct children, filtered as the channel list is (`status`, `projectTypeId`, `access`, `q`). Oldest first, paged with ' +
      '`limit` and `skip`; the total is in `X-Total-Count`.',
  })
  @ContentListResponse(ProjectResponse, "The project's matching sub-projects")
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async listProjectChildren(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Query() query: ListProjectsQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProjectResponse[]> {
    return withTotalCount(reply, await this.projects.listChildren(scope, projectId, query));
  }

  @Access(PROJECTS_ACCESS)
  @Get('projects/:projectId/tree')
  @ApiOperation({
    summary: "Read a project's tree",
    description:
      `The project and every sub-project below it, to the bottom: ids, parents, titles, types and statuses. At most ${MAX_TREE_NODES} ` +
      'projects; a bigger tree answers 422, and is read level by level with the children list.',
  })
  @ApiOkResponse({ type: ProjectTreeResponse, description: 'The tree, the project first, then each level in turn' })
  @ApiTreeRefusal(
    `The tree holds more than ${MAX_TREE_NODES} projects`,
    `The tree holds more than ${MAX_TREE_NODES} projects; read it level by level with GET /projects/{projectId}/children`,
  )
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getProjectTree(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
  ): Promise<ProjectTreeResponse> {
    return this.projects.tree(scope, projectId);
  }

  @Access({
    ...PROJECTS_ACCESS,
    channel: {
      role: UPDATE_PROJECT_ROLE,
      from: 'project',
      param: 'projectId',
      destination: { field: 'channelId', role: 'editor' },
    },
  })
  @Put('projects/:projectId')
  @ApiOperation({
    summary: 'Update a project',
    description:
      'Any subset of the fields. Another `channelId` moves the project to that channel (404 when it does not exist). Another ' +
      '`parentId` moves it, with its sub-projects, under that project of the same channel; null makes it top-level. A move that ' +
      'would make a cycle, a tree deeper than 4 levels, or a parent in another channel is 422.',
  })
  @ApiOkResponse({ type: ProjectResponse, description: 'The updated project' })
  @ApiTreeRefusal(
    'The move would make a cycle, a tree deeper than 4 levels, or a parent in another channel',
    'A project cannot move under itself or one of its sub-projects',
  )
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  updateProject(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Body() dto: UpdateProjectDto,
  ): Promise<ProjectResponse> {
    return this.projects.update(scope, projectId, dto);
  }

  @Access({ ...PROJECTS_ACCESS, channel: { role: DELETE_PROJECT_ROLE, from: 'project', param: 'projectId' } })
  @Delete('projects/:projectId')
  @ApiOperation({
    summary: 'Delete a project',
    description:
      "Its id is removed from the channel's `projectIds`. A project with sub-projects answers 409 unless `cascade=true`, which deletes " +
      'the whole subtree, recording `project.deleted` for each project removed.',
  })
  @ApiOkResponse({ type: ProjectDeletedResponse, description: 'Project deleted' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 500, 503)
  async deleteProject(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Query() query: DeleteProjectQuery,
  ): Promise<ProjectDeletedResponse> {
    await this.projects.remove(scope, projectId, query.cascade);
    return { message: 'Project deleted' };
  }
}
