import { Access } from '../access/policy/access-policy';
import { Controller, Get, Headers, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { AssetContentResponses, AssetDelivery, downloaderOf } from './asset-delivery';
import { AssetsService } from './assets.service';
import { SIGNED_GRANT_MAX_LENGTH, SIGNED_GRANT_MIN_LENGTH, SIGNED_GRANT_PATTERN } from './content-url';

const NOT_FOUND = 'Asset content not found: the URL is unknown, altered or expired';

/**
 * The signed content URLs: the last segment of the path is the only credential, so the route is
 * public and has no tenant of the caller's; the grant names its own. A client never composes the
 * URL (`GET /assets/{assetId}/content-url` hands it out whole), but a player or an SDK follows it,
 * so the document describes what it answers.
 */
@ApiTags('assets')
@Controller()
export class AssetLinksController {
  constructor(
    private readonly assets: AssetsService,
    private readonly delivery: AssetDelivery,
  ) {}

  @Access({ credentials: ['signedUrl'], scope: 'none' })
  @Get('asset-content/:signedGrant')
  @ApiOperation({
    summary: "Download a ready asset's bytes at its signed URL",
    description:
      'The `url` of `GET /assets/{assetId}/content-url`, followed as it is, with no other credential: it names one asset of one project ' +
      'until its `expiresAt`. Answers as `GET /assets/{assetId}/content` does: `Range` (one range: 206 with `Content-Range`; outside the ' +
      'file: 416), `ETag` (the SHA-256; `If-None-Match` naming it: 304), the type sniffed from the bytes and `Content-Disposition` carrying ' +
      'the file name. A URL that is unknown, altered or expired, or whose asset was deleted since: 404.',
  })
  @ApiParam({
    name: 'signedGrant',
    description:
      "The last segment of the signed URL: the asset's, account's and project's ids, the expiry (Unix seconds) and their HMAC-SHA256",
    schema: {
      type: 'string',
      pattern: SIGNED_GRANT_PATTERN,
      minLength: SIGNED_GRANT_MIN_LENGTH,
      maxLength: SIGNED_GRANT_MAX_LENGTH,
    },
  })
  @AssetContentResponses()
  @ApiResponse({
    status: 404,
    description: 'The URL is unknown, altered or expired, or its asset was deleted since',
    type: ErrorResponseDto,
    example: { statusCode: 404, error: 'Not Found', message: NOT_FOUND },
  })
  @ApiErrorResponses(416, 429, 500, 503)
  async getAssetContentBySignedUrl(
    @Param('signedGrant') signedGrant: string,
    @Headers('range') range: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const found = signedGrant.length <= SIGNED_GRANT_MAX_LENGTH ? await this.assets.byContentToken(signedGrant) : null;
    if (!found) throw new NotFoundException(NOT_FOUND);
    this.delivery.assertReady(found.asset);
    await this.delivery.send(reply, found.asset, {
      range,
      ifNoneMatch,
      resourcePolicy: 'cross-origin',
      downloader: downloaderOf({ signedGrant }),
    });
  }
}
