import { Module, type OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { MongooseModule } from '@nestjs/mongoose';
import { assetsConfig } from '../config/assets.config';
import { LeasesModule } from '../leases/leases.module';
import { Asset, AssetSchema } from './asset.schema';
import { join } from 'node:path';
import { LazyLibrary } from '../common/lazy/lazy-library';
import { AssetStorage, FileAssetStorage } from './asset-storage';
import { AssetDeletion, AssetDeletionSchema } from './asset-deletion.schema';
import { AssetUpload, AssetUploadSchema } from './asset-upload.schema';
import { AssetDelivery } from './asset-delivery';
import { AssetLinksController } from './asset-links.controller';
import { AssetProcessor, PROCESSING_LIBRARIES } from './asset-processor';
import { AssetsController } from './assets.controller';
import { AssetsRepository } from './assets.repository';
import { AssetsService } from './assets.service';
import { TUS_LIBRARY, TusUploads } from './tus-uploads';
import { UploadsController } from './uploads.controller';

const s3Storage = new LazyLibrary<typeof import('./s3-asset-storage')>(
  '@aws-sdk/client-s3',
  join(__dirname, 's3-asset-storage'),
);

/**
 * Assets of content projects: records, tus uploads, processing and delivery. Sits below projects:
 * it asks a content project's channel through `ProjectChannelLookup` (assets.ports.ts, provided by
 * the projects module), and the projects module calls
 * `AssetsService.removeForProjects` when projects go. `AssetDelivery` sends a ready asset's bytes for
 * the owners' route here and the viewers' route of the sharing module.
 *
 * Invariants: an asset over either quota is refused before any byte is received; it has one upload,
 * written by one request at a time and processed once, under leases; its bytes are delivered only
 * once it is `ready`, their type and checksum checked, and are removed when it ends `errored` or is
 * deleted (AssetsService). A delete marks the asset first (no longer read or served), takes its
 * upload's lock, removes the bytes, then the record; what stops half-way is finished from a record
 * of the delete written first (its own, or the content project cascade's), by any instance.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: Asset.name, schema: AssetSchema },
      { name: AssetUpload.name, schema: AssetUploadSchema },
      { name: AssetDeletion.name, schema: AssetDeletionSchema },
    ]),
    LeasesModule,
  ],
  controllers: [AssetsController, AssetLinksController, UploadsController],
  providers: [
    {
      provide: AssetStorage,
      inject: [assetsConfig.KEY],
      // The S3 client and store are loaded here, at start, only when a bucket is configured: a
      // missing or broken install then stops the start; on disk, none of them is loaded.
      useFactory: (config: ConfigType<typeof assetsConfig>): AssetStorage =>
        config.s3
          ? new (s3Storage.load().S3AssetStorage)(config.s3, config.uploadTtlMs)
          : new FileAssetStorage(config.directory, config.uploadTtlMs),
    },
    AssetsRepository,
    AssetsService,
    AssetProcessor,
    TusUploads,
    AssetDelivery,
  ],
  exports: [AssetsService, AssetDelivery],
})
export class AssetsModule implements OnModuleInit {
  /** The libraries processing loads on first use are there (the tus server's too): a broken install stops the start. */
  onModuleInit(): void {
    for (const library of [...PROCESSING_LIBRARIES, TUS_LIBRARY]) library.assertInstalled();
  }
}
