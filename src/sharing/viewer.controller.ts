import { Access, type AccessPolicy } from '../access/policy/access-policy';
import {
  applyDecorators,
  Controller,
  createParamDecorator,
  type ExecutionContext,
  Get,
  Headers,
  Param,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AssetContentResponses, AssetDelivery, downloaderOf } from '../assets/asset-delivery';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { ContentListQuery } from '../common/paging/content-list.query';
import { ContentListResponse, withTotalCount } from '../common/paging/total-count';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import type { Principal } from '../tenancy/principal';
import { Caller, Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { ViewerProjectResponse } from './dto/viewer-project.response';
import { type ViewerCredentials, ViewerService } from './viewer.service';

export const SHARE_TOKEN_HEADER = 'x-share-token';
export const SHARE_PASSWORD_HEADER = 'x-share-password';
export const VIEWER_TOKEN_HEADER = 'x-viewer-token';

/** The headers a viewer may send beside the publishable key, and the answers that are the viewer's own. */
export function ViewerCredentialsDoc(
  notFound: { description: string; message: string } = VIEWER_PROJECT_NOT_FOUND_DOC,
) {
  return applyDecorators(
    ApiHeader({
      name: 'X-Share-Token',
      required: false,
      description: 'The token of a share link (`shr_...`) of the project or an ancestor: opens what is `linkPrivate`',
      schema: { type: 'string', maxLength: 100 },
    }),
    ApiHeader({
      name: 'X-Share-Password',
      required: false,
      description: "The share link's password, when it has one",
      schema: { type: 'string', maxLength: 72 },
    }),
    ApiHeader({
      name: 'X-Viewer-Token',
      required: false,
      description:
        'An access token of a user (from POST /api/v1/login) holding a grant on the project or an ancestor: opens what is `permissions`',
      schema: { type: 'string', maxLength: 4096 },
    }),
    ApiResponse({
      status: 401,
      description: 'No valid publishable key, or a live share link whose password is missing or wrong',
      type: ErrorResponseDto,
      example: {
        statusCode: 401,
        error: 'Unauthorized',
        message: 'This share link needs its password: send it in X-Share-Password',
      },
    }),
    ApiResponse({
      status: 404,
      description: notFound.description,
      type: ErrorResponseDto,
      example: { statusCode: 404, error: 'Not Found', message: notFound.message },
    }),
  );
}

const VIEWER_PROJECT_NOT_FOUND_DOC = {
  description:
    'No such project, or one this viewer may not see (unpublished, archived or hidden above, or without the link or grant it asks for): the same answer',
  message: 'Project not found',
};

/** A header's value; repeated, the first. */
function header(headers: FastifyRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The viewer's headers (documented by `ViewerCredentialsDoc`: Nest's `@Headers()` would also list
 * each as a required parameter of its own). `X-Viewer-Token` may carry a `Bearer ` prefix.
 */
export const Credentials = createParamDecorator((_data: unknown, execution: ExecutionContext): ViewerCredentials => {
  const { headers } = execution.switchToHttp().getRequest<FastifyRequest>();
  return {
    shareToken: header(headers, SHARE_TOKEN_HEADER),
    sharePassword: header(headers, SHARE_PASSWORD_HEADER),
    viewerToken: header(headers, VIEWER_TOKEN_HEADER)?.replace(/^Bearer\s+/i, ''),
  };
});

/**
 * What viewers (an app's audience, not the account's members) read of the content, with the
 * platform project's publishable key: published projects, as each one's access rules allow
 * (ViewerService states them).
 */
/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const VIEWER_ACCESS: AccessPolicy = {
  credentials: ['publishableKey', 'shareToken', 'viewerToken'],
  scope: 'viewer',
  api: 'projects',
};

@ApiTags('viewer')
@Controller('viewer')
export class ViewerController {
  constructor(
    private readonly viewer: ViewerService,
    private readonly delivery: AssetDelivery,
  ) {}

  @Access(VIEWER_ACCESS)
  @Get('projects/:projectId')
  @ApiOperation({
    summary: 'View a project',
    description:
      'A published project the viewer may see: `public` ones (and every ancestor) to anyone with the publishable key; `linkPrivate` ones with a share link ' +
      'of the project or an ancestor in `X-Share-Token`; `permissions` ones to a user granted on the project or an ancestor (`X-Viewer-Token`). ' +
      'Every read through a share link counts as one of its `views`.',
  })
  @ApiOkResponse({
    type: ViewerProjectResponse,
    description: 'The project as viewers see it',
    links: {
      ViewProjectChildren: { operationId: 'viewProjectChildren', parameters: { projectId: '$response.body#/id' } },
    },
  })
  @ViewerCredentialsDoc()
  @ApiErrorResponses(400, 429, 500, 503)
  viewProject(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Credentials() credentials: ViewerCredentials,
  ): Promise<ViewerProjectResponse> {
    return this.viewer.viewProject(scope, projectId, credentials);
  }

  @Access(VIEWER_ACCESS)
  @Get('projects/:projectId/children')
  @ApiOperation({
    summary: "View a project's children",
    description:
      'The published sub-projects of a project the viewer may see, that the viewer may see too, in id order. Paged with `limit` and `skip`; ' +
      'the total in `X-Total-Count`.',
  })
  @ContentListResponse(ViewerProjectResponse, 'The visible children')
  @ViewerCredentialsDoc()
  @ApiErrorResponses(400, 429, 500, 503)
  async viewProjectChildren(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Query() query: ContentListQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Credentials() credentials: ViewerCredentials,
  ): Promise<ViewerProjectResponse[]> {
    return withTotalCount(reply, await this.viewer.viewChildren(scope, projectId, credentials, query));
  }

  @Access(VIEWER_ACCESS)
  @Get('assets/:assetId/content')
  @ApiOperation({
    summary: "Read a ready asset's bytes as a viewer",
    description:
      'The bytes of a `ready` asset whose project the viewer may see, by the rules of `GET /viewer/projects/{projectId}`: the same `Range` (206, 416), ' +
      "`ETag` (`If-None-Match`: 304), `Content-Type` and `Content-Disposition` as the owners' `GET /assets/{assetId}/content`. " +
      'Each read that sends bytes (200 or 206) through a share link or a grant counts as one of its `views`.',
  })
  @AssetContentResponses()
  @ViewerCredentialsDoc({
    description: 'No such asset, one not `ready`, or one whose project this viewer may not see: the same answer',
    message: 'Asset not found',
  })
  @ApiErrorResponses(400, 416, 429, 500, 503)
  async viewAssetContent(
    @Tenant() scope: TenantScope,
    @Param('assetId', ParseObjectIdPipe) assetId: string,
    @Headers('range') range: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Credentials() credentials: ViewerCredentials,
    @Caller() caller: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { asset, countView } = await this.viewer.assetToView(scope, assetId, credentials);
    // A HEAD (Fastify answers it with this handler, without the body) reads no byte: it is no view.
    await this.delivery.send(
      reply,
      asset,
      { range, ifNoneMatch, downloader: downloaderOf(caller, request.ip) },
      request.method === 'GET' ? countView : undefined,
    );
  }
}
