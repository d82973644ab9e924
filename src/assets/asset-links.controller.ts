import { Controller, Get, Headers, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../common/decorators/public.decorator';
import { AssetDelivery } from './asset-delivery';
import { AssetsService } from './assets.service';

/**
 * The signed content URLs: the token in the path is the only credential. Like the one-time upload
 * URL, the URL is handed out whole (`GET /assets/{assetId}/content-url`, where the OpenAPI document
 * describes it) and never composed by a client, so the route is not an operation of the document.
 */
@ApiExcludeController()
@Controller()
export class AssetLinksController {
  constructor(
    private readonly assets: AssetsService,
    private readonly delivery: AssetDelivery,
  ) {}

  /** The bytes, as `GET /assets/{assetId}/content` sends them; an unknown, altered or expired URL, or an asset deleted since: 404. */
  @Get('asset-content/:token')
  @Public()
  async getAssetContentBySignedUrl(
    @Param('token') token: string,
    @Headers('range') range: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const found = token.length <= 200 ? await this.assets.byContentToken(token) : null;
    if (!found) throw new NotFoundException('Asset content not found: the URL is unknown, altered or expired');
    this.delivery.assertReady(found.asset);
    await this.delivery.send(reply, found.asset, { range, ifNoneMatch });
  }
}
