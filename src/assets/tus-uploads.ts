import { HttpException, Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { Server, Upload } from '@tus/server';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { finished } from 'node:stream';
import { toErrorBody } from '../common/filters/all-exceptions.filter';
import { LazyLibrary } from '../common/lazy/lazy-library';
import { assetsConfig } from '../config/assets.config';
import { AssetStorage } from './asset-storage';
import { AssetsService } from './assets.service';
import { Leases } from '../leases/leases.service';
import { markReceived } from './received-chunks';
import { LeaseLocker } from './upload-locker';

/** The tus server and srvx's Node bridge, loaded by the first upload request an instance gets. */
const tus = new LazyLibrary<typeof import('@tus/server')>('@tus/server');
export const TUS_LIBRARY: LazyLibrary<unknown> = tus;
const srvx = new LazyLibrary<typeof import('srvx/node')>('srvx', 'srvx/node');

/** `/assets/<id>/upload` (the API's credentials) or `/uploads/<id>/<token>` (the one-time URL): the asset's id. */
const UPLOAD_PATH = /^\/(?:assets\/([0-9a-f]{24})\/upload|uploads\/([0-9a-f]{24})\/[A-Za-z0-9_-]+)\/?$/i;

export function uploadIdOf(url: string): string | undefined {
  const match = UPLOAD_PATH.exec(new URL(url, 'http://localhost').pathname);
  return (match?.[1] ?? match?.[2])?.toLowerCase();
}

/** Longest a stop waits for the tus requests under way. */
const STOP_WAIT_MS = 5_000;
/** Bytes of a request's body read ahead of the store: the socket is paused past them. */
const BODY_AHEAD_BYTES = 64 * 1024;

/**
 * The request's body as a web stream of the very chunks Node read, counted in bytes: past
 * `BODY_AHEAD_BYTES` not yet taken by the store, the request is paused (back-pressure to the
 * socket), and a cancelled stream destroys the request, as `Readable.toWeb` does. Unlike
 * `Readable.toWeb`, which srvx's `NodeRequest` uses and which copies every chunk into a new
 * `Uint8Array`, nothing is copied: every byte received is allocated once, not twice, and the file
 * store frees each chunk once written (`received-chunks.ts`).
 */
export function uploadBody(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  // Once cancelled, the stream takes nothing more: enqueue, close or error on it would throw from an event listener.
  let open = true;
  const onData = (chunk: Buffer) => {
    if (!open) return;
    markReceived(chunk);
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
  };
  const cleanup = finished(incoming, (error) => {
    cleanup();
    incoming.off('data', onData);
    if (!open) return;
    open = false;
    if (!error) return controller.close();
    // A client gone mid-body, as `Readable.toWeb` reports it: the tus server answers it as aborted.
    const premature = (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE';
    controller.error(premature ? new DOMException('The request was aborted', 'AbortError') : error);
  });
  incoming.on('data', onData);
  return new ReadableStream<Uint8Array>(
    {
      start: (started) => {
        controller = started;
      },
      pull: () => {
        incoming.resume();
      },
      cancel: (reason) => {
        open = false;
        incoming.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: BODY_AHEAD_BYTES, size: (chunk) => chunk.byteLength },
  );
}

/** srvx's request of the tus server (what `Server.handle` makes), its body read by `uploadBody`. */
function uploadRequest(incoming: IncomingMessage, response: ServerResponse): Request {
  const request = new (srvx.load().NodeRequest)({ req: incoming, res: response });
  const method = incoming.method;
  let body: ReadableStream<Uint8Array> | null | undefined;
  // An own property: it comes before srvx's getter, which the request's other members read too.
  Object.defineProperty(request, 'body', {
    configurable: true,
    enumerable: true,
    get: () => {
      if (body === undefined) body = method === 'GET' || method === 'HEAD' ? null : uploadBody(incoming);
      return body;
    },
  });
  return request;
}

/**
 * A refusal of the tus server in the shape of every other error of the service (`statusCode`,
 * `error`, `message`, JSON), its text as the message; its headers (`Tus-Resumable`,
 * `Upload-Offset`...) kept. Other answers are left as they are.
 */
export async function asServiceError(answer: Response): Promise<Response> {
  if (answer.status < 400) return answer;
  const text = (await answer.text()).trim();
  const status = answer.status;
  const headers = new Headers(answer.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json; charset=utf-8');
  const body = toErrorBody(new HttpException(text || (STATUS_CODES[status] ?? 'Error'), status));
  return new Response(JSON.stringify(body), { status, headers });
}

/**
 * The tus answer under the app's CORS policy: where the app let the origin in (its
 * `Access-Control-Allow-Origin` is on `response`), the tus headers are exposed beside the app's;
 * elsewhere the answer carries no CORS header at all, as every other route.
 */
export function sameCors(answer: Response, response: Pick<ServerResponse, 'getHeader'>): Response {
  const tusExposed = answer.headers.get('access-control-expose-headers');
  for (const name of [...answer.headers.keys()]) if (name.startsWith('access-control-')) answer.headers.delete(name);
  if (response.getHeader('access-control-allow-origin') !== undefined && tusExposed) {
    const exposed = new Set(
      [String(response.getHeader('access-control-expose-headers') ?? ''), tusExposed]
        .flatMap((list) => list.split(','))
        .map((name) => name.trim())
        .filter(Boolean),
    );
    answer.headers.set('Access-Control-Expose-Headers', [...exposed].join(', '));
  }
  return answer;
}

/**
 * The tus 1.0 server (`@tus/server`) on the asset storage's datastore. Each upload URL names its
 * asset, and the upload's id is the asset's: a client creates the upload with `POST` to the URL it
 * was given, which is also the upload's own URL (`Location`). Who may use a URL, and whether the
 * asset takes the upload, is checked before a request gets here (UploadsController).
 */
@Injectable()
export class TusUploads implements OnModuleDestroy {
  /** Made by the first request: the service starts without the tus server loaded. */
  private server?: Server;
  private readonly locker: LeaseLocker;
  /** Requests the tus server is working on, and who waits for there to be none. */
  private inFlight = 0;
  private idle?: () => void;

  constructor(
    private readonly storage: AssetStorage,
    private readonly assets: AssetsService,
    leases: Leases,
    @Inject(assetsConfig.KEY) private readonly config: ConfigType<typeof assetsConfig>,
  ) {
    this.locker = new LeaseLocker(leases);
  }

  private tusServer(): Server {
    this.server ??= new (tus.load().Server)({
      path: '/uploads',
      datastore: this.storage.datastore,
      // Every instance's requests on one upload take turns: two PATCHes never write at once.
      locker: this.locker,
      maxSize: this.config.maxBytes,
      respectForwardedHeaders: false,
      // CORS is the app's (CORS_ORIGINS, answered before the request gets here: `sameCors`); unset,
      // the tus server would allow every origin.
      allowedOrigins: () => false,
      namingFunction: (request) => uploadIdOf(request.url) ?? '',
      getFileIdFromRequest: (request) => uploadIdOf(request.url),
      generateUrl: (request, { proto, host }) => `${proto}://${host}${new URL(request.url).pathname}`,
      onUploadFinish: async (_request, upload: Upload) => {
        await this.assets.uploadFinished(upload.id);
        return {};
      },
    });
    return this.server;
  }

  /**
   * As `Server.handle`, with the body read by `uploadBody`. `response` already holds the headers
   * every answer of the service carries (request id, nosniff, the app's CORS): the tus answer adds its own.
   */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.inFlight++;
    let answered: Promise<void>;
    try {
      const server = this.tusServer();
      answered = server
        .handleWeb(uploadRequest(request, response))
        .then(asServiceError)
        .then((answer) => srvx.load().sendNodeResponse(response, sameCors(answer, response)));
    } catch (error) {
      answered = Promise.reject(error as Error);
    }
    return answered.finally(() => {
      if (--this.inFlight === 0) this.idle?.();
    });
  }

  /**
   * A stop waits for the requests the tus server is still working on (a cut PATCH whose bytes are
   * still going to the store): their bytes are kept and their locks released, so the upload resumes
   * at once on another instance instead of after the lock lapses. A request whose client went away
   * can leave the tus server's promise unsettled, so the wait is bounded: past it, the lock lapses
   * by itself (15 s) as after a crash. Then it waits for the locks' releases still under way.
   */
  async onModuleDestroy(): Promise<void> {
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((done) => (this.idle = done)),
        new Promise<void>((done) => (timer = setTimeout(done, STOP_WAIT_MS))),
      ]);
      clearTimeout(timer);
    }
    await this.locker.settled();
    this.server?.removeAllListeners();
  }
}
