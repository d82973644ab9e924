import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, trusted } from 'mongoose';
import { Collection } from './collection.schema';
import { toCollectionResponse } from './collections.mapper';
import { CollectionResponse } from './dto/collection.response';
import { CreateCollectionDto } from './dto/create-collection.dto';
import { ListCollectionsQuery } from './dto/list-collections.query';
import { UpdateCollectionDto } from './dto/update-collection.dto';

const NOT_FOUND = 'Collection not found';
const WRITABLE_FIELDS = ['name', 'description', 'numberOfClients', 'numberOfUsers', 'usage', 'pricing', 'endpoints'] as const;

type CollectionFields = Partial<Pick<Collection, (typeof WRITABLE_FIELDS)[number]>>;

/** Copies only the contract's writable fields, so nothing else of a body reaches the database. */
export function collectionFields(dto: UpdateCollectionDto): CollectionFields {
  const fields: Record<string, unknown> = {};
  for (const key of WRITABLE_FIELDS) {
    if (dto[key] !== undefined) fields[key] = dto[key];
  }
  return fields as CollectionFields;
}

const live = { deletedAt: null };
const softDeleted = { deletedAt: trusted({ $ne: null }) };

@Injectable()
export class CollectionsService {
  constructor(@InjectModel(Collection.name) private readonly collections: Model<Collection>) {}

  async create(dto: CreateCollectionDto): Promise<string> {
    const created = await this.collections.create(collectionFields(dto));
    return String(created._id);
  }

  /** One page, newest first, and the total of the filter for `X-Total-Count`. */
  async list(query: ListCollectionsQuery): Promise<{ items: CollectionResponse[]; total: number }> {
    const filter = query.includeDeleted ? {} : live;
    const [rows, total] = await Promise.all([
      this.collections.find(filter).sort({ _id: -1 }).skip(query.skip).limit(query.limit).lean<Collection[]>().exec(),
      this.collections.countDocuments(filter).exec(),
    ]);
    return { items: rows.map(toCollectionResponse), total };
  }

  async get(id: string, includeDeleted: boolean): Promise<CollectionResponse> {
    const collection = await this.collections
      .findOne({ _id: id, ...(includeDeleted ? {} : live) })
      .lean<Collection>()
      .exec();
    if (!collection) throw new NotFoundException(NOT_FOUND);
    return toCollectionResponse(collection);
  }

  /** Only a live collection can be updated; the guard sits in the filter, so a concurrent soft delete wins cleanly. */
  async update(id: string, dto: UpdateCollectionDto): Promise<void> {
    const result = await this.collections.updateOne({ _id: id, ...live }, { $set: collectionFields(dto) }).exec();
    if (result.matchedCount === 0) throw new NotFoundException(NOT_FOUND);
  }

  async softDelete(id: string): Promise<void> {
    const result = await this.collections.updateOne({ _id: id, ...live }, { $set: { deletedAt: new Date() } }).exec();
    if (result.matchedCount === 0) throw new NotFoundException(NOT_FOUND);
  }

  /** Only a soft-deleted collection can be restored; a live or unknown id is 404. */
  async restore(id: string): Promise<void> {
    const result = await this.collections.updateOne({ _id: id, ...softDeleted }, { $set: { deletedAt: null } }).exec();
    if (result.matchedCount === 0) throw new NotFoundException(NOT_FOUND);
  }

  /** Removes the collection whether live or soft-deleted. */
  async hardDelete(id: string): Promise<void> {
    const result = await this.collections.deleteOne({ _id: id }).exec();
    if (result.deletedCount === 0) throw new NotFoundException(NOT_FOUND);
  }
}
