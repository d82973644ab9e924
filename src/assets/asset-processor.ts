import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ASSET_UPLOADED, OnInProcessEvent } from '../in-process-events/in-process-events';
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { addAbortSignal, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LazyLibrary } from '../common/lazy/lazy-library';
import { assetsConfig } from '../config/assets.config';
import { JobRunner, type JobHandle, type JobStep } from '../jobs/job-runner';
import { Leases } from '../leases/leases.service';
import type { Asset } from './asset.schema';
import { AssetStorage, FileAssetStorage } from './asset-storage';
import { looksLikeText, normalMimeType, typeAgrees } from './asset-rules';
import { AssetsService, type ProcessingOutcome } from './assets.service';

const THUMBNAIL_PIXELS = 320;
/** Images larger than this many pixels are not decoded for a thumbnail (a decompression bomb). */
const MAX_IMAGE_PIXELS = 100_000_000;
/** The one buffer a stored file is hashed through (see `digestFile`). */
const READ_BUFFER_BYTES = 1024 * 1024;
const SAMPLE_BYTES = 4096;

/**
 * What processing reads bytes with, loaded by the first asset an instance processes: the type
 * sniffer and its tokenizers for every asset, the image library for images, the media parser for
 * audio and video.
 */
const fileType = new LazyLibrary<typeof import('file-type')>('file-type');
const tokenizers = new LazyLibrary<typeof import('strtok3')>('strtok3');
const sharp = new LazyLibrary<typeof import('sharp')>('sharp');
const musicMetadata = new LazyLibrary<typeof import('music-metadata')>('music-metadata');
/** Checked at start by the module: an install without one of them stops the start, as loading it there did. */
export const PROCESSING_LIBRARIES: readonly LazyLibrary<unknown>[] = [fileType, tokenizers, sharp, musicMetadata];

/**
 * Processes finished uploads off the request path, on every instance: each asset under a lease
 * (`asset-processing:<id>`), so one instance works on it at a time and, should it crash, another
 * takes it over once the lease expires; the upload's ticket stays `processing` until the asset is
 * settled. A ticket whose asset never left `uploading` (the finishing instance stopped in between)
 * is finished here once its grace has passed (`AssetsService.processing`), then processed. A try
 * that misses its deadline (`processingDeadline`: a read of the store that never ends) has its
 * reads destroyed, is counted on the ticket and gives the lease back at once, so the asset is tried
 * again at the next sweep, here or elsewhere; after `tries` of them it is `errored`. Its result,
 * should it still arrive, is dropped. The lease is renewed while the asset is processed, and its
 * fencing token guards the asset's take-up and outcome. Also expires abandoned uploads, one
 * instance at a time, and finishes assets' deletes their request left (each under a lease). All
 * run as jobs of the `JobRunner`.
 */
@Injectable()
export class AssetProcessor implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AssetProcessor.name);
  private processingJob?: JobHandle;
  private expiryJob?: JobHandle;
  private deletesJob?: JobHandle;

  constructor(
    private readonly assets: AssetsService,
    private readonly storage: AssetStorage,
    private readonly leases: Leases,
    @Inject(assetsConfig.KEY) private readonly config: ConfigType<typeof assetsConfig>,
    private readonly jobs: JobRunner,
  ) {}

  onModuleInit(): void {
    this.processingJob = this.jobs.register({
      name: 'assets.processing',
      everyMs: this.config.sweepIntervalMs,
      run: (step) => this.processUploads(step),
    });
    this.expiryJob = this.jobs.register({
      name: 'assets.upload-expiry',
      everyMs: this.config.sweepIntervalMs,
      lease: { holdMs: this.config.sweepIntervalMs * 4 },
      run: () => this.assets.expireUploads(),
    });
    this.deletesJob = this.jobs.register({
      name: 'assets.finish-deletes',
      everyMs: this.config.sweepIntervalMs,
      run: () => this.assets.finishStoppedDeletes(),
    });
  }

  /** The asset being processed finishes; no other starts. */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.processingJob?.stop(), this.expiryJob?.stop(), this.deletesJob?.stop()]);
  }

  @OnInProcessEvent(ASSET_UPLOADED)
  kick(): void {
    this.processingJob?.kick();
  }

  /**
   * Processes the finished uploads, each under its fenced lease, renewed while it runs however long
   * the file takes: the asset is taken up and settled under the lease's token, so a holder that was
   * taken over (paused past its lease) settles nothing.
   */
  async processUploads(step: Pick<JobStep, 'stopping'>): Promise<void> {
    for (const upload of await this.assets.uploadsToProcess(20)) {
      if (step.stopping()) return;
      const id = String(upload._id);
      await this.leases.tryWithFencedLease(
        `asset-processing:${id}`,
        this.config.processingLeaseMs,
        async ({ fence }) => {
          const asset = await this.assets.processing(id);
          if (!asset || !(await this.assets.takeUpProcessing(id, fence))) return;
          const outcome = await this.analyseBefore(asset, this.deadlineMs(asset.size));
          if (outcome) await this.assets.settle(id, outcome, fence);
        },
      );
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
    this.logger.warn(
      `Processing asset ${id} did not finish within ${limitMs} ms (try ${tries} of ${most}): its reads are destroyed and its lease released`,
    );
    if (tries < most) return undefined;
    return {
      error: {
        code: 'unreadable',
        message: `Processing did not finish within ${Math.round(limitMs / 1000)} s in ${tries} tries`,
      },
    };
  }

  /** A read of the stored bytes, destroyed when `signal` aborts. */
  private read(id: string, signal: AbortSignal): Readable {
    return addAbortSignal(signal, this.storage.read(id));
  }

  /** What the stored bytes are: sniffed type, SHA-256, and the dimensions or duration a probe reads. */
  async analyse(asset: Asset, signal: AbortSignal = new AbortController().signal): Promise<ProcessingOutcome> {
    const id = String(asset._id);
    const stored = await this.storage.size(id);
    if (stored !== asset.size)
      return {
        error: { code: 'unreadable', message: `The store holds ${stored ?? 0} bytes of the ${asset.size} uploaded` },
      };

    const [sniffed, { sha256, sample }] = await Promise.all([this.sniff(id, signal), this.digest(id, signal)]);
    const sniffedType = sniffed?.mime ?? null;
    const text = looksLikeText(sample);
    if (!typeAgrees(asset.kind, asset.mimeType, sniffedType, text)) {
      const found = sniffedType ?? (text ? 'text without a signature' : 'of no known type');
      return {
        error: {
          code: 'type_mismatch',
          message: `The bytes are ${found}, not the declared ${asset.kind} ${normalMimeType(asset.mimeType)}`,
        },
      };
    }
    if (asset.declaredSha256 && asset.declaredSha256 !== sha256) {
      return {
        error: {
          code: 'checksum_mismatch',
          message: `The bytes' SHA-256 is ${sha256}, not the declared ${asset.declaredSha256}`,
        },
      };
    }
    const ready: Partial<Asset> = { sha256, contentType: sniffedType ?? normalMimeType(asset.mimeType), error: null };
    if (asset.kind === 'image') Object.assign(ready, await this.image(id, signal));
    if (asset.kind === 'audio' || asset.kind === 'video')
      ready.durationSeconds = await this.duration(id, sniffedType!, asset.size, signal);
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
    const { fileTypeFromTokenizer } = fileType.load();
    const { fromFile, fromStream } = tokenizers.load();
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
        if (sample.length < SAMPLE_BYTES)
          sample = Buffer.concat([sample, chunk.subarray(0, SAMPLE_BYTES - sample.length)]);
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
      const image = sharp.load();
      const probe = image({ limitInputPixels: MAX_IMAGE_PIXELS });
      const [metadata] = await Promise.all([probe.metadata(), pipeline(this.read(id, signal), probe)]);
      const thumbnail = image({ limitInputPixels: MAX_IMAGE_PIXELS })
        .rotate()
        .resize(THUMBNAIL_PIXELS, THUMBNAIL_PIXELS, { fit: 'inside', withoutEnlargement: true })
        .webp();
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
    let tokenizer: Awaited<ReturnType<typeof import('strtok3').fromFile>> | undefined;
    let stream: Readable | undefined;
    try {
      const { parseFromTokenizer, parseStream } = musicMetadata.load();
      const options = { duration: true, skipCovers: true };
      let metadata;
      if (file) {
        // A file tokenizer skips what the parser does not need (the samples) without reading it.
        tokenizer = await tokenizers.load().fromFile(file, { fileInfo: { mimeType } });
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
