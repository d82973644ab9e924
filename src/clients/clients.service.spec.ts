import { Types } from 'mongoose';
import type { Client } from './client.schema';
import { toClientResponse } from './clients.mapper';
import { clientFields } from './clients.service';
import type { UpdateClientDto } from './dto/update-client.dto';

describe('clientFields', () => {
  it('copies the writable fields that are present, with project ids lowercased, and nothing else', () => {
    const body = {
      email: 'a@example.com',
      projectIds: ['6650C0FFEE0000000000B001'],
      phone: undefined,
      deletedAt: null,
    };
    expect(clientFields(body as UpdateClientDto)).toEqual({
      email: 'a@example.com',
      projectIds: ['6650c0ffee0000000000b001'],
    });
  });
});

describe('toClientResponse', () => {
  it('gives ids as strings, ISO dates, null phone and [] projectIds when unset', () => {
    const doc = {
      _id: new Types.ObjectId('6650c0ffee0000000000d001'),
      name: 'Acme',
      email: 'a@example.com',
      createdAt: new Date('2024-05-24T10:00:00.000Z'),
      updatedAt: new Date('2024-05-24T10:00:00.000Z'),
      deletedAt: new Date('2024-06-01T00:00:00.000Z'),
    } as Client;
    expect(toClientResponse(doc)).toEqual({
      _id: '6650c0ffee0000000000d001',
      name: 'Acme',
      email: 'a@example.com',
      phone: null,
      projectIds: [],
      createdAt: '2024-05-24T10:00:00.000Z',
      updatedAt: '2024-05-24T10:00:00.000Z',
      deletedAt: '2024-06-01T00:00:00.000Z',
    });
  });
});
