import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { SoftDeletableRecords } from '../tenancy/soft-deletable-records';
import { Records } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import { EventRelay } from '../events/event-relay';
import { Collection } from './collection.schema';
import { toCollectionResponse } from './collections.mapper';

export const COLLECTION_NOT_FOUND = 'Collection not found';

/** The collections of a platform project: the only code that reads or writes them. */
@Injectable()
export class CollectionsRepository extends SoftDeletableRecords<Collection> {
  constructor(@InjectModel(Collection.name) model: Model<Collection>, relay: EventRelay) {
    super(
      new TenantRecords(model, relay.recorder(new Records(model), toCollectionResponse)),
      COLLECTION_NOT_FOUND,
      'collection',
    );
  }
}
