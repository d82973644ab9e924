import { Types } from 'mongoose';
import type { Customer } from './customer.schema';
import { CustomerSchema } from './customer.schema';
import { toCustomerCreatedData, toCustomerResponse } from './customers.mapper';
import { customerFields } from './customers.service';
import type { UpdateCustomerDto } from './dto/update-customer.dto';

const doc = {
  _id: new Types.ObjectId('6650c0ffee0000000000f001'),
  email: 'jenny@example.com',
  SocialNumber: '078-05-1120',
  phone: '+1 415 555 0100',
  Taxable: true,
  createdAt: new Date('2024-05-24T10:00:00.000Z'),
  updatedAt: new Date('2024-05-25T10:00:00.000Z'),
} as unknown as Customer;

describe('customerFields', () => {
  it('copies the writable fields that are present, and never defaultMethod or anything else', () => {
    const body = {
      email: 'a@example.com',
      firstName: null,
      balance: undefined,
      SocialNumber: 'x',
      defaultMethod: 'y',
      _id: 'z',
    };
    expect(customerFields(body as unknown as UpdateCustomerDto)).toEqual({
      email: 'a@example.com',
      firstName: null,
      SocialNumber: 'x',
    });
  });
});

describe('customer mappers', () => {
  it('the create shape has exactly the twelve fields, with the defaults', () => {
    expect(toCustomerCreatedData(doc)).toEqual({
      id: '6650c0ffee0000000000f001',
      email: 'jenny@example.com',
      firstName: null,
      lastName: null,
      address: {},
      country: null,
      balance: 0,
      verified: false,
      liveMode: false,
      createdAt: '2024-05-24T10:00:00.000Z',
      updatedAt: '2024-05-25T10:00:00.000Z',
      defaultMethod: null,
    });
  });

  it('the read shape adds phone and Taxable, never the social number', () => {
    const read = toCustomerResponse(doc);
    expect(read).toMatchObject({ phone: '+1 415 555 0100', Taxable: true });
    expect(Object.keys(read)).toHaveLength(14);
    expect(JSON.stringify(read)).not.toContain('078-05-1120');
  });

  it("the schema's toJSON drops the social number too", () => {
    const transform = (
      CustomerSchema.get('toJSON') as { transform: (d: unknown, r: Record<string, unknown>) => Record<string, unknown> }
    ).transform;
    const json = transform(undefined, { _id: doc._id, email: doc.email, SocialNumber: '078-05-1120' });
    expect(json).toEqual({ id: '6650c0ffee0000000000f001', email: 'jenny@example.com' });
  });
});
