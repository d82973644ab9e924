import { clientOf } from '../common/http/client-address';
import { applyDecorators, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Asset } from './asset.schema';
import { contentDisposition, deliveryOf, requestedRange } from './asset-rules';
import { AssetStorage } from './asset-storage';
import { ASSET_NOT_FOUND } from './assets.service';
import { TooManyRequestsException } from '../common/http/too-many-requests.exception';
import { assetsConfig } from '../config/assets.config';
import type { Principal } from '../tenancy/principal';

/** How long a client refused for too many open downloads waits before it tries again. */
const DOWNLOADS_RETRY_SECONDS = 5;

/**
 * Whose downloads are counted together: a user, a secret key, one client address of a publishable
 * key (an app's viewers share the key), or one signed URL (`signedGrant`).
 */
export function downloaderOf(caller: Principal | { signedGrant: string }, address?: string): string {
  if ('signedGrant' in caller) return `signed:${caller.signedGrant}`;
  if (caller.kind === 'user') return `user:${caller.userId}`;
  return caller.publishable ? `viewer:${caller.keyId}:${clientOf(address ?? '')}` : `key:${caller.keyId}`;
}

/**
 * What every answer carrying a user's bytes sends, whatever the route: no script, style, frame or
 * request of its own runs from them even when a browser opens them as a page (`sandbox` also gives
 * them an opaque origin, so they reach no cookie of the service), and no type is guessed from them.
 * `Cross-Origin-Resource-Policy` is the route's: `same-site` for the routes of the API's own
 * credentials and the viewers', `cross-origin` for the signed URL, which a player of any site embeds.
 */
export function userBytesHeaders(resourcePolicy: 'same-site' | 'cross-origin' = 'same-site'): Record<string, string> {
  return {
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': resourcePolicy,
  };
}

/**
 * How a ready asset's bytes leave the service, for its owners and its viewers alike: the one place
 * that decides the status (200, 206, 304, 416) and the headers (ETag, Range, type, disposition).
 */
@Injectable()
export class AssetDelivery {
  /** Downloads under way on this instance, per downloader (`downloaderOf`). */
  private readonly open = new Map<string, number>();

  constructor(
    private readonly storage: AssetStorage,
    @Inject(assetsConfig.KEY) private readonly config: ConfigType<typeof assetsConfig>,
  ) {}

  /** An asset that is not `ready` has no bytes to give: the 404 says why to its owner. */
  assertReady(asset: Asset): asserts asset is Asset & { sha256: string } {
    if (asset.status !== 'ready' || !asset.sha256)
      throw new NotFoundException(`${ASSET_NOT_FOUND}: it is ${asset.status}, not ready`);
  }

  /**
   * Answers the request with the asset's bytes (all, or the one range asked for), a 304 for a
   * matching `If-None-Match`, or a 416 for a range outside the file. `beforeBytes` runs once it is
   * settled that bytes will be sent (200 or 206), before the first is: what a read must leave behind
   * (a viewer's counted view) is stored before the client has the answer.
   */
  async send(
    reply: FastifyReply,
    asset: Asset & { sha256: string },
    request: {
      range?: string;
      ifNoneMatch?: string;
      resourcePolicy?: 'same-site' | 'cross-origin';
      downloader: string;
    },
    beforeBytes: () => Promise<void> = async () => {},
  ): Promise<void> {
    const assetId = String(asset._id);
    const etag = `"${asset.sha256}"`;
    const delivery = deliveryOf(asset.contentType);
    void reply
      .headers(userBytesHeaders(request.resourcePolicy))
      .header('ETag', etag)
      .header('Accept-Ranges', 'bytes')
      .header('Cache-Control', 'private, no-cache')
      .header('Content-Type', delivery.contentType)
      .header('Content-Disposition', contentDisposition(asset.fileName, delivery.disposition));
    const { ifNoneMatch, range } = request;
    if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
      return reply.status(HttpStatus.NOT_MODIFIED).send();
    }
    const wanted = requestedRange(range, asset.size);
    if (wanted === 'unsatisfiable') {
      return reply
        .status(HttpStatus.REQUESTED_RANGE_NOT_SATISFIABLE)
        .header('Content-Range', `bytes */${asset.size}`)
        .removeHeader('Content-Disposition')
        .header('Content-Type', 'application/json; charset=utf-8')
        .send({
          statusCode: 416,
          error: 'Range Not Satisfiable',
          message: `The range is outside the file's ${asset.size} bytes`,
        });
    }
    const release = this.admit(request.downloader, reply);
    try {
      await beforeBytes();
    } catch (error) {
      release();
      throw error;
    }
    if (wanted) {
      return reply
        .status(HttpStatus.PARTIAL_CONTENT)
        .header('Content-Range', `bytes ${wanted.start}-${wanted.end}/${asset.size}`)
        .header('Content-Length', String(wanted.end - wanted.start + 1))
        .send(this.storage.read(assetId, wanted));
    }
    return reply.status(HttpStatus.OK).header('Content-Length', String(asset.size)).send(this.storage.read(assetId));
  }

  /**
   * Counts one more download of `downloader` until its response closes (sent, or the connection
   * gone: a reader that stalls is dropped by the server's connection timeout); past
   * `ASSET_CONCURRENT_DOWNLOADS` at once, 429. One credential's pile of paused downloads then holds
   * a bounded number of files and sockets, and the others' downloads go on.
   */
  private admit(downloader: string, reply: FastifyReply): () => void {
    const count = this.open.get(downloader) ?? 0;
    if (count >= this.config.concurrentDownloads) {
      throw new TooManyRequestsException(
        `Too many downloads open at once with this credential (at most ${this.config.concurrentDownloads})`,
        DOWNLOADS_RETRY_SECONDS,
      );
    }
    this.open.set(downloader, count + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.open.get(downloader) ?? 1) - 1;
      if (left > 0) this.open.set(downloader, left);
      else this.open.delete(downloader);
    };
    reply.raw.once('close', release);
    return release;
  }
}

const BYTES = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };
const ETAG = {
  description: 'The SHA-256 of the bytes, quoted: send it back in `If-None-Match`',
  schema: { type: 'string', pattern: '^"[0-9a-f]{64}"$', minLength: 66, maxLength: 66 },
};
/** What comes with the bytes, whole or a range. */
const BYTES_HEADERS = {
  ETag: ETAG,
  'Accept-Ranges': { description: '`bytes`: a `Range` is honoured', schema: { type: 'string', enum: ['bytes'] } },
  'Content-Disposition': {
    description:
      '`inline` for raster images (PNG, JPEG, GIF, WebP, AVIF), audio, video and `text/plain`; `attachment` for any other type, ' +
      'sent as `application/octet-stream`. The file name, as `filename*` (RFC 6266)',
    schema: { type: 'string' },
  },
  'Content-Security-Policy': {
    description: "`default-src 'none'; sandbox`: nothing in the bytes runs",
    schema: { type: 'string' },
  },
  'Cross-Origin-Resource-Policy': {
    description: '`same-site`; `cross-origin` at a signed URL',
    schema: { type: 'string', enum: ['same-site', 'cross-origin'] },
  },
};

/** The request headers and the byte-carrying answers of a route that sends an asset's bytes with `AssetDelivery`. */
export function AssetContentResponses() {
  return applyDecorators(
    ApiHeader({
      name: 'Range',
      required: false,
      description: 'One byte range, `bytes=0-1023`, `bytes=1024-` or `bytes=-1024`',
      schema: { type: 'string', maxLength: 200 },
    }),
    // The bytes' own media type on success; errors are JSON like everywhere else.
    ApiResponse({ status: 200, description: 'The whole file', content: BYTES, headers: BYTES_HEADERS }),
    ApiResponse({
      status: 206,
      description: 'The range asked for',
      content: BYTES,
      headers: {
        ...BYTES_HEADERS,
        'Content-Range': {
          description: 'The range sent and the size: `bytes 0-1023/4096`',
          schema: { type: 'string', pattern: '^bytes [0-9]+-[0-9]+/[0-9]+$', maxLength: 100 },
        },
      },
    }),
    ApiResponse({ status: 304, description: '`If-None-Match` names the current ETag', headers: { ETag: ETAG } }),
  );
}
