import { Types } from 'mongoose';
import type { Collection } from './collection.schema';
import { toCollectionResponse } from './collections.mapper';
import { collectionFields } from './collections.service';
import type { UpdateCollectionDto } from './dto/update-collection.dto';

describe('collectionFields', () => {
  it('copies the writable fields that are present and nothing else', () => {
    const body = { name: 'Starter', pricing: 0, endpoints: [], description: undefined, deletedAt: null, _id: 'x' };
    expect(collectionFields(body as UpdateCollectionDto)).toEqual({ name: 'Starter', pricing: 0, endpoints: [] });
  });
});

describe('toCollectionResponse', () => {
  const base = {
    _id: new Types.ObjectId('6650c0ffee0000000000c001'),
    name: 'Starter',
    createdAt: new Date('2024-05-24T10:00:00.000Z'),
    updatedAt: new Date('2024-05-24T11:00:00.000Z'),
  };

  it('gives the id as a string, ISO dates, and null or [] for unset fields', () => {
    expect(toCollectionResponse({ ...base, deletedAt: null } as Collection)).toEqual({
      _id: '6650c0ffee0000000000c001',
      name: 'Starter',
      description: null,
      numberOfClients: null,
      numberOfUsers: null,
      usage: null,
      pricing: null,
      endpoints: [],
      createdAt: '2024-05-24T10:00:00.000Z',
      updatedAt: '2024-05-24T11:00:00.000Z',
      deletedAt: null,
    });
  });

  it('keeps zero values and reports deletedAt as ISO', () => {
    const doc = {
      ...base,
      numberOfClients: 0,
      pricing: 0,
      deletedAt: new Date('2024-06-01T00:00:00.000Z'),
    } as Collection;
    expect(toCollectionResponse(doc)).toMatchObject({
      numberOfClients: 0,
      pricing: 0,
      deletedAt: '2024-06-01T00:00:00.000Z',
    });
  });
});
