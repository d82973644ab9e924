import { Access } from '../access/policy/access-policy';
import { All, BadRequestException, Controller, NotFoundException, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { Asset } from './asset.schema';
import { ASSET_NOT_FOUND, AssetsService } from './assets.service';
import { TusUploads } from './tus-uploads';

/**
 * The tus endpoints of an asset (described on `createAsset` in the OpenAPI document): the one-time
 * URL, and the same operations with the API's token or key. Each request is checked against the
 * asset before the tus server sees a byte of it.
 */
@ApiExcludeController()
@Controller()
export class UploadsController {
  constructor(
    private readonly assets: AssetsService,
    private readonly tus: TusUploads,
  ) {}

  @Access({ credentials: ['uploadUrl'], scope: 'none' })
  @All('uploads/:assetId/:token')
  async uploadWithToken(
    @Param('assetId', ParseObjectIdPipe) assetId: string,
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const found = await this.assets.byUploadToken(assetId, token);
    if (!found) throw new NotFoundException('Upload not found: the URL is unknown, used up or expired');
    await this.upload(found.scope, found.asset, request, reply);
  }

  @Access({
    credentials: ['userToken', 'session', 'secretKey'],
    scope: 'project',
    api: 'projects',
    assurance: 'accountMfa',
    channel: { role: 'editor', from: 'asset', param: 'assetId' },
  })
  /** With the API's credentials: the upload is a change of the asset, so it needs what changing it needs (`editor` in its channel). */
  @All('assets/:assetId/upload')
  async uploadAsset(
    @Tenant() scope: TenantScope,
    @Param('assetId', ParseObjectIdPipe) assetId: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.upload(scope, await this.assets.getToChange(scope, assetId), request, reply);
  }

  private async upload(scope: TenantScope, asset: Asset, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = String(asset._id);
    const method = request.method;
    // The tus server answers concatenation with 501: a client's choice, refused as one.
    if (header(request, 'upload-concat') !== undefined)
      throw new BadRequestException(
        'Upload-Concat is not supported: send the file as one upload (turn off parallel uploads in the tus client)',
      );
    if (method === 'POST') await this.assets.beginUpload(scope, asset, header(request, 'upload-length'));
    else if (method === 'PATCH') this.assets.assertUploading(asset, 'send bytes');
    else if (method === 'DELETE') {
      // Termination (tus 1.0): answered here, once the bytes are gone and the asset waits again, so
      // the next read of the asset already says so.
      this.assets.assertUploading(asset, 'terminate the upload');
      await this.assets.uploadTerminated(scope, id);
      return reply.status(204).header('Tus-Resumable', '1.0.0').send();
    } else if (method !== 'HEAD' && method !== 'OPTIONS') throw new NotFoundException(ASSET_NOT_FOUND);

    // From here the tus server writes the answer on the raw response, which first takes the headers
    // every answer carries (request id, nosniff, CORS, rate limit): Fastify would send them only with its own reply.
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    await this.tus.handle(request.raw, reply.raw);
    const status = reply.raw.statusCode;
    if (method === 'POST' && status >= 400) await this.assets.creationFailed(scope, id);
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
