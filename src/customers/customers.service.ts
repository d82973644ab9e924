import { toAddress } from '../common/dto/address.dto';
import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { cursorFilter, FinanceListQuery, Page, toPage } from '../common/paging/finance-list.query';
import { isValidObjectId } from '../common/pipes/object-id';
import { Customer } from './customer.schema';
import {
  CUSTOMER_DELETED,
  CUSTOMER_PAYMENT_METHOD_LOOKUP,
  CustomerDeletedEvent,
  CustomerPaymentMethodLookupEvent,
} from './customers.events';
import { toCustomerCreatedData, toCustomerResponse } from './customers.mapper';
import { PerKeyQueue } from './per-key-queue';
import { CreateCustomerDto } from './dto/create-customer.dto';
import { CustomerCreatedData, CustomerResponse } from './dto/customer.response';
import { UpdateCustomerDto } from './dto/update-customer.dto';

export const CUSTOMER_NOT_FOUND = 'Customer not found';
export const DEFAULT_METHOD_NOT_OWNED = "defaultMethod must be the id of one of this customer's cards";

const WRITABLE_FIELDS = [
  'email',
  'firstName',
  'lastName',
  'country',
  'address',
  'phone',
  'SocialNumber',
  'liveMode',
  'verified',
  'Taxable',
  'balance',
] as const;

type CustomerFields = Partial<Pick<Customer, (typeof WRITABLE_FIELDS)[number]>>;

/**
 * Copies only the contract's writable fields that are present, so nothing else of a body reaches the
 * database. `defaultMethod` is not among them: it changes only through the checked paths.
 */
export function customerFields(dto: CreateCustomerDto | UpdateCustomerDto): CustomerFields {
  const fields: Record<string, unknown> = {};
  for (const key of WRITABLE_FIELDS) {
    if (dto[key] !== undefined) fields[key] = key === 'address' && dto.address ? toAddress(dto.address) : dto[key];
  }
  return fields as CustomerFields;
}

@Injectable()
export class CustomersService {
  /** Writes of one customer's defaultMethod, in order (see PerKeyQueue). */
  private readonly defaultMethodWrites = new PerKeyQueue();

  constructor(
    @InjectModel(Customer.name) private readonly customers: Model<Customer>,
    private readonly events: EventEmitter2,
  ) {}

  async create(dto: CreateCustomerDto): Promise<CustomerCreatedData> {
    const created = await this.customers.create(customerFields(dto));
    return toCustomerCreatedData(created.toObject());
  }

  /** A customer with no fields set (email null), for a card created without one. Returns its id. */
  async createBlank(): Promise<string> {
    const created = await this.customers.create({});
    return String(created._id);
  }

  /** Newest first, `limit` per page, after the `startingAfter` cursor. */
  async list(query: FinanceListQuery): Promise<Page<CustomerResponse>> {
    const rows = await this.customers
      .find(cursorFilter(query.startingAfter))
      .sort({ _id: -1 })
      .limit(query.limit + 1)
      .lean<Customer[]>()
      .exec();
    return toPage(rows, query.limit, toCustomerResponse);
  }

  async get(id: string): Promise<CustomerResponse> {
    const customer = await this.findById(id);
    if (!customer) throw new NotFoundException(CUSTOMER_NOT_FOUND);
    return customer;
  }

  /** The customer, or null when there is none with this id (a malformed id included). */
  async findById(id: string): Promise<CustomerResponse | null> {
    if (!isValidObjectId(id)) return null;
    const customer = await this.customers.findById(id).lean<Customer>().exec();
    return customer ? toCustomerResponse(customer) : null;
  }

  /** True when a customer with this id exists. A malformed id is simply false. */
  async exists(id: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    return (await this.customers.exists({ _id: id }).exec()) !== null;
  }

  /**
   * Partial update. A `defaultMethod` must name one of this customer's cards; it is checked before
   * the write and again after it, so a card deleted in between does not stay behind as the default.
   */
  async update(id: string, dto: UpdateCustomerDto): Promise<CustomerResponse> {
    const set: Record<string, unknown> = customerFields(dto);
    const defaultMethod = typeof dto.defaultMethod === 'string' ? dto.defaultMethod.toLowerCase() : dto.defaultMethod;
    if (defaultMethod !== undefined) set.defaultMethod = defaultMethod;
    if (defaultMethod) {
      if (!(await this.exists(id))) throw new NotFoundException(CUSTOMER_NOT_FOUND);
      if (!(await this.ownsPaymentMethod(id, defaultMethod))) throw new BadRequestException(DEFAULT_METHOD_NOT_OWNED);
    }
    if (Object.keys(set).length === 0) return this.get(id);
    const write = () =>
      this.customers.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after', runValidators: true }).lean<Customer>().exec();
    const updated = defaultMethod !== undefined ? await this.defaultMethodWrites.run(id, write) : await write();
    if (!updated) throw new NotFoundException(CUSTOMER_NOT_FOUND);
    if (defaultMethod && !(await this.ownsPaymentMethod(id, defaultMethod))) {
      await this.clearDefaultMethodIf(id, defaultMethod);
      throw new BadRequestException(DEFAULT_METHOD_NOT_OWNED);
    }
    return toCustomerResponse(updated);
  }

  /** Removes the customer, then its cards (through the awaited CUSTOMER_DELETED event). */
  async delete(id: string): Promise<void> {
    const result = await this.customers.deleteOne({ _id: id }).exec();
    if (result.deletedCount === 0) throw new NotFoundException(CUSTOMER_NOT_FOUND);
    const event: CustomerDeletedEvent = { customerId: id };
    await this.events.emitAsync(CUSTOMER_DELETED, event);
  }

  /** Makes `cardId` the default only while the customer has none; true when it did. */
  async setDefaultMethodIfUnset(customerId: string, cardId: string): Promise<boolean> {
    const result = await this.defaultMethodWrites.run(customerId, () =>
      this.customers.updateOne({ _id: customerId, defaultMethod: null }, { $set: { defaultMethod: cardId } }).exec(),
    );
    return result.modifiedCount > 0;
  }

  /** Makes `cardId` the default; the updated customer, or null when the customer does not exist. */
  async setDefaultMethod(customerId: string, cardId: string): Promise<CustomerResponse | null> {
    const updated = await this.defaultMethodWrites.run(customerId, () =>
      this.customers
        .findOneAndUpdate({ _id: customerId }, { $set: { defaultMethod: cardId } }, { returnDocument: 'after' })
        .lean<Customer>()
        .exec(),
    );
    return updated ? toCustomerResponse(updated) : null;
  }

  /** Clears the default only while it is still `cardId`; true when it did. */
  async clearDefaultMethodIf(customerId: string, cardId: string): Promise<boolean> {
    const result = await this.defaultMethodWrites.run(customerId, () =>
      this.customers.updateOne({ _id: customerId, defaultMethod: cardId }, { $set: { defaultMethod: null } }).exec(),
    );
    return result.modifiedCount > 0;
  }

  private async ownsPaymentMethod(customerId: string, methodId: string): Promise<boolean> {
    const event: CustomerPaymentMethodLookupEvent = { customerId, methodId };
    const answers: unknown[] = await this.events.emitAsync(CUSTOMER_PAYMENT_METHOD_LOOKUP, event);
    return answers.includes(true);
  }
}
