import { Access, type AccessPolicy } from '../access/policy/access-policy';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  NotFoundException,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { Idempotent } from '../idempotency/idempotent.decorator';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ContentListQuery } from '../common/paging/content-list.query';
import { ContentListResponse, withTotalCount } from '../common/paging/total-count';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import type { Principal } from '../tenancy/principal';
import { Caller, Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { AssetContentResponses, AssetDelivery, downloaderOf, userBytesHeaders } from './asset-delivery';
import { AssetStorage } from './asset-storage';
import { AssetsService } from './assets.service';
import {
  AssetContentUrlResponse,
  AssetDeletedResponse,
  AssetResponse,
  CreatedAssetResponse,
} from './dto/asset.response';
import { CreateAssetDto } from './dto/create-asset.dto';
import { UpdateAssetDto } from './dto/update-asset.dto';

const TUS_DESCRIPTION =
  'Answers the asset, `waiting` for its bytes, and `upload.url`: its one-time tus 1.0 upload URL, valid until `upload.expiresAt` (24 h), ' +
  'which needs no other credential. Upload with any tus client: `POST` to that URL creates the upload (`Tus-Resumable: 1.0.0`, ' +
  "`Upload-Length` equal to the asset's `size`; bytes may come with it, `Content-Type: application/offset+octet-stream`), `PATCH` " +
  'sends bytes from `Upload-Offset`, `HEAD` tells the offset to resume from after a lost connection, `DELETE` terminates the upload ' +
  "(the asset waits again). The same operations are at `/assets/{assetId}/upload` with the API's token or key. Once the last byte " +
  'lands the asset is `processing`, then `ready` or `errored` (`type_mismatch`, `checksum_mismatch`, `upload_expired`). ' +
  "`size` over `ASSET_MAX_BYTES`, or the project's assets over `PROJECT_STORAGE_BYTES` with it: 413, before any byte is kept.";

/** Who may change an asset (CONTENT.md): said on every route that does. */
const EDITOR_NEEDED =
  "Needs the channel role editor or above in the project's channel, or the platform role admin (403 `channel_role_required` otherwise); " +
  'an API key acts as admin.';

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const ASSETS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'projects',
  assurance: 'accountMfa',
};

@ApiTags('assets')
@Controller()
export class AssetsController {
  constructor(
    private readonly assets: AssetsService,
    private readonly storage: AssetStorage,
    private readonly delivery: AssetDelivery,
  ) {}

  @Access({ ...ASSETS_ACCESS, channel: { role: 'editor', from: 'project', param: 'projectId' } })
  @Post('projects/:projectId/assets')
  @Idempotent()
  @ApiOperation({ summary: 'Create an asset and its upload', description: TUS_DESCRIPTION + ` ${EDITOR_NEEDED}` })
  @ApiCreatedResponse({ type: CreatedAssetResponse, description: 'The asset and where to upload its bytes' })
  @ApiUnprocessableEntityResponse({
    description:
      '`fileName` holds a format or bidirectional character, is a Windows device name or only spaces and dots (`errors` names it), or the Idempotency-Key was used with another request body',
    type: ErrorResponseDto,
    example: {
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: 'Validation failed: fileName must not be a device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9)',
      errors: [
        { field: 'fileName', messages: ['fileName must not be a device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9)'] },
      ],
    },
  })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  createAsset(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Body() dto: CreateAssetDto,
    @Req() request: FastifyRequest,
  ): Promise<CreatedAssetResponse> {
    return this.assets.create(scope, projectId, dto, `${request.protocol}://${request.host}`);
  }

  @Access(ASSETS_ACCESS)
  @Get('projects/:projectId/assets')
  @ApiOperation({
    summary: "List a project's assets",
    description: 'Newest first, paged with `limit` and `skip`; the total is in `X-Total-Count`.',
  })
  @ContentListResponse(AssetResponse, "The project's assets")
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async listAssets(
    @Tenant() scope: TenantScope,
    @Param('projectId', ParseObjectIdPipe) projectId: string,
    @Query() query: ContentListQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AssetResponse[]> {
    return withTotalCount(reply, await this.assets.list(scope, projectId, query));
  }

  @Access(ASSETS_ACCESS)
  @Get('assets/:assetId')
  @ApiOperation({ summary: 'Get an asset' })
  @ApiOkResponse({ type: AssetResponse, description: 'The asset' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getAsset(@Tenant() scope: TenantScope, @Param('assetId', ParseObjectIdPipe) assetId: string): Promise<AssetResponse> {
    return this.assets.findOne(scope, assetId);
  }

  @Access({ ...ASSETS_ACCESS, channel: { role: 'editor', from: 'asset', param: 'assetId' } })
  @Patch('assets/:assetId')
  @ApiOperation({ summary: "Update an asset's title or description", description: EDITOR_NEEDED })
  @ApiOkResponse({ type: AssetResponse, description: 'The updated asset' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  updateAsset(
    @Tenant() scope: TenantScope,
    @Param('assetId', ParseObjectIdPipe) assetId: string,
    @Body() dto: UpdateAssetDto,
  ): Promise<AssetResponse> {
    return this.assets.update(scope, assetId, dto);
  }

  @Access({ ...ASSETS_ACCESS, channel: { role: 'editor', from: 'asset', param: 'assetId' } })
  @Delete('assets/:assetId')
  @ApiOperation({
    summary: 'Delete an asset',
    description: `Its stored bytes go too; an upload in progress ends (the delete waits for a request writing it; 409 when that outlasts the wait, the delete then finishing in the background). ${EDITOR_NEEDED}`,
  })
  @ApiOkResponse({ type: AssetDeletedResponse, description: 'Asset deleted' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 500, 503)
  async deleteAsset(
    @Tenant() scope: TenantScope,
    @Param('assetId', ParseObjectIdPipe) assetId: string,
  ): Promise<AssetDeletedResponse> {
    await this.assets.remove(scope, assetId);
    return { message: 'Asset deleted' };
  }

  @Access(ASSETS_ACCESS)
  @Get('assets/:assetId/content')
  @ApiOperation({
    summary: "Download a ready asset's bytes",
    description:
      'Streamed, with `Range` (one range: 206 with `Content-Range`; outside the file: 416), `ETag` (the SHA-256), the type sniffed from ' +
      'the bytes and `Content-Disposition` carrying the file name (`filename*`, RFC 6266). An asset not `ready` yet: 404.',
  })
  @AssetContentResponses()
  @ApiErrorResponses(400, 401, 404, 416, 429, 500, 503)
  async getAssetContent(
    @Tenant() scope: TenantScope,
    @Param('assetId', ParseObjectIdPipe) assetId: string,
    @Headers('range') range: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Caller() caller: Principal,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const asset = await this.assets.get(scope, assetId);
    this.delivery.assertReady(asset);
    await this.delivery.send(reply, asset, { range, ifNoneMatch, downloader: downloaderOf(caller) });
  }

  @Access(ASSETS_ACCESS)
  @Get('assets/:assetId/content-url')
  @ApiOperation({
    summary: "A signed short-lived URL of a ready asset's bytes",
    description:
      'For players that cannot send a token (`<audio>`, `<video>`): a `GET` of `url` answers the bytes as `GET /assets/{assetId}/content` ' +
      'does (`Range`: 206, 416; `ETag`, `If-None-Match`: 304; type and `Content-Disposition`) and needs no other credential until `expiresAt`, ' +
      '15 minutes on; hand it only to whom may read the asset. Once expired or altered, or the asset deleted, the URL answers 404. ' +
      'An asset not `ready` yet: 404.',
  })
  @ApiOkResponse({ type: AssetContentUrlResponse, description: 'The URL and its expiry' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getAssetContentUrl(
    @Tenant() scope: TenantScope,
    @Param('assetId', ParseObjectIdPipe) assetId: string,
    @Req() request: FastifyRequest,
  ): Promise<AssetContentUrlResponse> {
    return this.assets.contentUrl(scope, assetId, `${request.protocol}://${request.host}`);
  }

  @Access(ASSETS_ACCESS)
  @Get('assets/:assetId/thumbnail')
  @ApiOperation({
    summary: "A ready image's thumbnail",
    description: 'WebP, at most 320 pixels each side. An asset without one: 404.',
  })
  @ApiResponse({
    status: 200,
    description: 'The thumbnail',
    content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async getAssetThumbnail(
    @Tenant() scope: TenantScope,
    @Param('assetId', ParseObjectIdPipe) assetId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const asset = await this.assets.get(scope, assetId);
    if (!asset.hasThumbnail) throw new NotFoundException('This asset has no thumbnail');
    return reply
      .status(200)
      .headers(userBytesHeaders())
      .header('Content-Type', 'image/webp')
      .header('Cache-Control', 'private, no-cache')
      .send(this.storage.readDerived(assetId, 'thumbnail'));
  }
}
