import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Collection, CollectionSchema } from './collection.schema';
import { CollectionsController } from './collections.controller';
import { CollectionsListener } from './collections.listener';
import { CollectionsRepository } from './collections.repository';
import { CollectionsService } from './collections.service';

/**
 * The API consumers' collections, soft-deletable (`SoftDeletableRecords`): an update or soft delete
 * applies only to a live collection and a restore only to a soft-deleted one, each one update
 * guarded on that state; a hard delete is audited. It keeps no invariant beyond the tenant scope
 * and those states.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: Collection.name, schema: CollectionSchema }])],
  controllers: [CollectionsController],
  providers: [CollectionsService, CollectionsListener, CollectionsRepository],
  exports: [CollectionsService],
})
export class CollectionsModule {}
