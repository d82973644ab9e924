import type { Collection } from './collection.schema';
import type { CollectionResponse } from './dto/collection.response';

/** Builds exactly the contract's collection fields, the id as a string and dates as ISO strings. */
export function toCollectionResponse(collection: Collection): CollectionResponse {
  return {
    _id: String(collection._id),
    name: collection.name,
    description: collection.description ?? null,
    numberOfClients: collection.numberOfClients ?? null,
    numberOfUsers: collection.numberOfUsers ?? null,
    usage: collection.usage ?? null,
    pricing: collection.pricing ?? null,
    endpoints: collection.endpoints ?? [],
    createdAt: new Date(collection.createdAt).toISOString(),
    updatedAt: new Date(collection.updatedAt).toISOString(),
    deletedAt: collection.deletedAt ? new Date(collection.deletedAt).toISOString() : null,
  };
}
