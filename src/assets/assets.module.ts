import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { MongooseModule } from '@nestjs/mongoose';
import { assetsConfig } from '../config/assets.config';
import { CollaboratorsModule } from '../collaborators/collaborators.module';
import { LeasesModule } from '../leases/leases.module';
import { Asset, AssetSchema } from './asset.schema';
import { AssetStorage, FileAssetStorage, S3AssetStorage } from './asset-storage';
import { AssetDeletion, AssetDeletionSchema } from './asset-deletion.schema';
import { AssetUpload, AssetUploadSchema } from './asset-upload.schema';
import { AssetDelivery } from './asset-delivery';
import { AssetLinksController } from './asset-links.controller';
import { AssetProcessor } from './asset-processor';
import { AssetsController } from './assets.controller';
import { AssetsRepository } from './assets.repository';
import { AssetsService } from './assets.service';
import { TusUploads } from './tus-uploads';
import { UploadsController } from './uploads.controller';

/**
 * Assets of content projects: records, tus uploads, processing and delivery. Sits below projects:
 * it asks whether a content project exists (`CONTENT_PROJECTS_LOOKUP`), and the projects module calls
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
    CollaboratorsModule,
  ],
  controllers: [AssetsController, AssetLinksController, UploadsController],
  providers: [
    {
      provide: AssetStorage,
      inject: [assetsConfig.KEY],
      useFactory: (config: ConfigType<typeof assetsConfig>): AssetStorage =>
        config.s3 ? new S3AssetStorage(config.s3, config.uploadTtlMs) : new FileAssetStorage(config.directory, config.uploadTtlMs),
    },
    AssetsRepository,
    AssetsService,
    AssetProcessor,
    TusUploads,
    AssetDelivery,
  ],
  exports: [AssetsService, AssetDelivery],
})
export class AssetsModule {}
