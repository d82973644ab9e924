import { createHmac } from 'node:crypto';
import { join, resolve } from 'node:path';
import { jwtSecret } from './auth.config';
import { configNamespace } from './namespace';

/** Assets and their uploads (docs/assets.md). */
export const assetsConfig = configNamespace('assets', (env) => ({
  maxBytes: env.ASSET_MAX_BYTES,
  projectStorageBytes: env.PROJECT_STORAGE_BYTES,
  /** Where the file store keeps uploads and what processing derives from them (thumbnails). */
  directory: resolve(join(env.DATA_DIR, 'assets')),
  /** The S3-compatible bucket every instance shares, when S3_BUCKET is set; else the file store above. */
  s3: env.S3_BUCKET
    ? {
        bucket: env.S3_BUCKET,
        endpoint: env.S3_ENDPOINT,
        region: env.S3_REGION,
        credentials:
          env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
            ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
            : undefined,
        forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
      }
    : undefined,
  /** How long an upload may take from the asset's creation; after it, the asset is `errored` (`upload_expired`) and its bytes go. */
  uploadTtlMs: 24 * 3600_000,
  /** How often each instance looks for uploads to process (one crashed mid-way included) and for expired ones. */
  sweepIntervalMs: env.NODE_ENV === 'test' ? 500 : 5_000,
  /**
   * How long a finished upload's ticket is left to the instance that marked it before a processor
   * moves its asset on in its stead (that instance stopped between the ticket and the asset): long
   * enough that a live move is never raced, since two moves would record `asset.uploaded` twice.
   */
  processingGraceMs: 60_000,
  /**
   * How long one instance holds an asset it processes at a time, renewed every third of it while it
   * works (however long the file takes); a holder that crashed lets another take it after this.
   */
  processingLeaseMs: env.ASSET_PROCESSING_LEASE_MS,
  /**
   * How long processing one asset may take: `base` plus its size read at `bytesPerSecond`. Past it,
   * the asset's reads are destroyed and its lease released, so a stalled read (a store connection
   * that never ends) costs one try, not the lease's 10 minutes; after `tries` such tries it is `errored`.
   * Shorter in tests, so a retry lands within a test's wait.
   */
  processingDeadline: { baseMs: env.NODE_ENV === 'test' ? 15_000 : 60_000, bytesPerSecond: 1024 * 1024, tries: 3 },
  /**
   * Key of the signed content URLs (for players that cannot send a token), derived from the token
   * secret: rotating that secret also ends every signed URL, as it ends every token.
   */
  contentUrlKey: createHmac('sha256', jwtSecret(env)).update('asset-content-url').digest(),
  /** How long a signed content URL reads its asset: long enough for a player to start and seek. */
  contentUrlTtlMs: 15 * 60_000,
  /** The origin signed content URLs are built on; null: the origin of the request that asked for one. */
  publicUrl: env.ASSET_PUBLIC_URL ? env.ASSET_PUBLIC_URL.replace(/\/$/, '') : null,
  /** Downloads one credential may have open at once on this instance. */
  concurrentDownloads: env.ASSET_CONCURRENT_DOWNLOADS,
}));

export type AssetsConfig = ReturnType<typeof assetsConfig.build>;
