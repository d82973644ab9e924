import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { OnEvent } from '@nestjs/event-emitter';
import { fileTypeFromTokenizer } from 'file-type';
import { parseFromTokenizer, parseStream } from 'music-metadata';
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { addAbortSignal, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { fromFile, fromStream } from 'strtok3';
import { assetsConfig } from '../config/assets.config';
import { Leases } from '../leases/leases.service';
import type { Asset } from './asset.schema';
import { AssetStorage, FileAssetStorage } from './asset-storage';
import { looksLikeText, normalMimeType, typeAgrees } from './asset-rules';
import { ASSET_UPLOADED, AssetsService, type ProcessingOutcome } from './assets.service';

const THUMBNAIL_PIXELS = 320;
/** Images larger than this many pixels are not decoded for a thumbnail (a decompression bomb). */
const MAX_IMAGE_PIXELS = 100_000_000;
const EXPIRY_LEASE = 'assets:expiry';
/** The one buffer a stored file is hashed through (see `digestFile`). */
const READ_BUFFER_BYTES = 1024 * 1024;
const SAMPLE_BYTES = 4096;

/**
 * Processes finished uploads off the request path, on every instance: each asset under a lease
 * (`asset-processing:<id>`), so one instance works on it at a time and, should it crash, another
 * takes it over once the lease expires; the upload's ticket stays `processing` until the asset is
 * settled. A ticket whose asset never left `uploading` (the finishing instance stopped in between)
 * is finished here once its grace has passed (`AssetsService.processing`), then processed. A try
 * that misses its deadline (`processingDeadline`: a read of the store that never ends) has its
 * reads destroyed, is counted on the ticket and gives the lease back at once, so the asset is tried
 * again at the next sweep, here or elsewhere; after `tries` of them it is `errored`. Its result,
 * should it still arrive, is dropped. Also expires abandoned uploads, one instance at a time, and
 * finishes assets' deletes their request left (each under a lease).
 */
@Injectable()
export class AssetProcessor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AssetProcessor.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly assets: AssetsService,
    private readonly storage: AssetStorage,
    private readonly leases: Leases,
    @Inject(assetsConfig.KEY) private readonly config: ConfigType<typeof assetsConfig>,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), this.config.sweepIntervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  @OnEvent(ASSET_UPLOADED)
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.work()
      .catch((error: Error) => this.logger.warn(`Asset processing failed: ${error.message}`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async work(): Promise<void> {
    await this.leases.tryWithLease(EXPIRY_LEASE, this.config.sweepIntervalMs * 4, () => this.assets.expireUploads());
    await this.assets.finishStoppedDeletes();
    for (const upload of await this.assets.uploadsToProcess(20)) {
      if (this.stopped) return;
      const id = String(upload._id);
      await this.leases.tryWithLease(`asset-processing:${id}`, this.config.processingLeaseMs, async () => {
        const asset = await this.assets.processing(id);
        if (!asset) return;
        const outcome = await this.analyseBefore(asset, this.deadlineMs(asset.size));
        if (outcome) await this.assets.settle(id, outcome);
      });
    }
  }

  private deadlineMs(size: number): number {
    const { baseMs, bytesPerSecond } = this.config.processingDeadline;
    return baseMs + Math.ceil((size / bytesPerSecond) * 1000);
  }

  /**
   * `analyse` within `limitMs`: its outcome, or undefined when it missed the deadline and gets
   * another try (its reads destroyed), or the `errored` outcome once it missed it `tries` times.
   */
  async analyseBefore(asset: Asset, limitMs: number): Promise<ProcessingOutcome | undefined> {
    const id = String(asset._id);
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), limitMs)));
    let outcome: ProcessingOutcome | 'stalled';
    try {
      outcome = await Promise.race([this.analyse(asset, abort.signal), stalled]);
    } finally {
      clearTimeout(timer);
    }
    if (outcome !== 'stalled') return outcome;
    abort.abort(new Error(`Processing asset ${id} missed its deadline of ${limitMs} ms`));
    const tries = await this.assets.countStalledTry(id);
    const { tries: most } = this.config.processingDeadline;
    this.logger.warn(`Processing asset ${id} did not finish within ${limitMs} ms (try ${tries} of ${most}): its reads are destroyed and its lease released`);
    if (tries < most) return undefined;
    return { error: { code: 'unreadable', message: `Processing did not finish within ${Math.round(limitMs / 1000)} s in ${tries} tries` } };
  }

  /** A read of the stored bytes, destroyed when `signal` aborts. */
  private read(id: string, signal: AbortSignal): Readable {
    return addAbortSignal(signal, this.storage.read(id));
  }

  /** What the stored bytes are: sniffed type, SHA-256, and the dimensions or duration a probe reads. */
  async analyse(asset: Asset, signal: AbortSignal = new AbortController().signal): Promise<ProcessingOutcome> {
    const id = String(asset._id);
    const stored = await this.storage.size(id);
    if (stored !== asset.size) return { error: { code: 'unreadable', message: `The store holds ${stored ?? 0} bytes of the ${asset.size} uploaded` } };

    const [sniffed, { sha256, sample }] = await Promise.all([this.sniff(id, signal), this.digest(id, signal)]);
    const sniffedType = sniffed?.mime ?? null;
    const text = looksLikeText(sample);
    if (!typeAgrees(asset.kind, asset.mimeType, sniffedType, text)) {
      const found = sniffedType ?? (text ? 'text without a signature' : 'of no known type');
      return { error: { code: 'type_mismatch', message: `The bytes are ${found}, not the declared ${asset.kind} ${normalMimeType(asset.mimeType)}` } };
    }
    if (asset.declaredSha256 && asset.declaredSha256 !== sha256) {
      return { error: { code: 'checksum_mismatch', message: `The bytes' SHA-256 is ${sha256}, not the declared ${asset.declaredSha256}` } };
    }
    const ready: Partial<Asset> = { sha256, contentType: sniffedType ?? normalMimeType(asset.mimeType), error: null };
    if (asset.kind === 'image') Object.assign(ready, await this.image(id, signal));
    if (asset.kind === 'audio' || asset.kind === 'video') ready.durationSeconds = await this.duration(id, sniffedType!, asset.size, signal);
    return { ready };
  }

  /**
   * The path of the stored bytes when they are a local file, else null. A file is read through a
   * file handle, not a stream: a stream makes a new buffer of every chunk, which stays resident until
   * the garbage collector frees it, so reading a large file through one kept far more memory resident
   * than the file handle does (bench/README.md, "Upload"). Other stores are read as streams.
   */
  private localFile(id: string): string | null {
    return this.storage instanceof FileAssetStorage ? this.storage.path(id) : null;
  }

  private async sniff(id: string, signal: AbortSignal) {
    const file = this.localFile(id);
    if (file) {
      const tokenizer = await fromFile(file);
      try {
        return await fileTypeFromTokenizer(tokenizer);
      } finally {
        await tokenizer.close();
      }
    }
    const stream = this.read(id, signal);
    try {
      // A tokenizer reads only as far as the signature needs (past an ID3 tag, say).
      return await fileTypeFromTokenizer(await fromStream(stream));
    } finally {
      stream.destroy();
    }
  }

  /** The SHA-256 of the stored bytes and their first 4 KiB. */
  private async digest(id: string, signal: AbortSignal): Promise<{ sha256: string; sample: Buffer }> {
    const file = this.localFile(id);
    if (file) return this.digestFile(file);
    const hash = createHash('sha256');
    let sample = Buffer.alloc(0);
    await pipeline(this.read(id, signal), async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) {
        if (sample.length < SAMPLE_BYTES) sample = Buffer.concat([sample, chunk.subarray(0, SAMPLE_BYTES - sample.length)]);
        hash.update(chunk);
      }
    });
    return { sha256: hash.digest('hex'), sample };
  }

  /** As `digest`, from a local file through one buffer, whatever the file's size. */
  private async digestFile(file: string): Promise<{ sha256: string; sample: Buffer }> {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    let sample: Buffer | undefined;
    const handle = await open(file, 'r');
    try {
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        sample ??= Buffer.from(buffer.subarray(0, Math.min(bytesRead, SAMPLE_BYTES)));
        hash.update(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
    return { sha256: hash.digest('hex'), sample: sample ?? Buffer.alloc(0) };
  }

  private async image(id: string, signal: AbortSignal): Promise<Partial<Asset>> {
    try {
      const probe = sharp({ limitInputPixels: MAX_IMAGE_PIXELS });
      const [metadata] = await Promise.all([probe.metadata(), pipeline(this.read(id, signal), probe)]);
      const thumbnail = sharp({ limitInputPixels: MAX_IMAGE_PIXELS }).rotate().resize(THUMBNAIL_PIXELS, THUMBNAIL_PIXELS, { fit: 'inside', withoutEnlargement: true }).webp();
      const [bytes] = await Promise.all([thumbnail.toBuffer(), pipeline(this.read(id, signal), thumbnail)]);
      await this.storage.writeDerived(id, 'thumbnail', bytes);
      return { width: metadata.width ?? null, height: metadata.height ?? null, hasThumbnail: true };
    } catch (error) {
      this.logger.warn(`No dimensions or thumbnail for asset ${id}: ${(error as Error).message}`);
      return {};
    }
  }

  private async duration(id: string, mimeType: string, size: number, signal: AbortSignal): Promise<number | null> {
    const file = this.localFile(id);
    let tokenizer: Awaited<ReturnType<typeof fromFile>> | undefined;
    let stream: Readable | undefined;
    try {
      const options = { duration: true, skipCovers: true };
      let metadata;
      if (file) {
        // A file tokenizer skips what the parser does not need (the samples) without reading it.
        tokenizer = await fromFile(file, { fileInfo: { mimeType } });
        metadata = await parseFromTokenizer(tokenizer, options);
      } else {
        stream = this.read(id, signal);
        metadata = await parseStream(stream, { mimeType, size }, options);
      }
      const seconds = metadata.format.duration;
      return typeof seconds === 'number' && Number.isFinite(seconds) ? Math.round(seconds * 1000) / 1000 : null;
    } catch (error) {
      this.logger.warn(`No duration for asset ${id}: ${(error as Error).message}`);
      return null;
    } finally {
      if (tokenizer) await tokenizer.close();
      stream?.destroy();
    }
  }
}
