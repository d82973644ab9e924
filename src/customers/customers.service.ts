import { auditContextOf } from '../audit/audit-draft';
import { AuditTrail } from '../audit/audit-trail';
import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InProcessEmitter } from '../in-process-events/in-process-events';
import { Types } from 'mongoose';
import { FieldEncryption, type FieldBinding } from '../common/crypto/field-encryption';
import { toAddress } from '../common/dto/address.dto';
import { pickDefined } from '../common/fields/pick-defined';
import { FinanceListQuery, Page, toPage } from '../common/paging/finance-list.query';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Customer } from './customer.schema';
import { CUSTOMER_DELETING, CustomerDeletingEvent } from './customers.events';
import { PaymentMethodLookup } from './customers.ports';
import { toCustomerCreatedData, toCustomerResponse } from './customers.mapper';
import { CustomersRepository } from './customers.repository';
import { CreateCustomerDto } from './dto/create-customer.dto';
import { CustomerCreatedData, CustomerResponse } from './dto/customer.response';
import { UpdateCustomerDto } from './dto/update-customer.dto';

export const CUSTOMER_NOT_FOUND = 'Customer not found';
export const DEFAULT_METHOD_NOT_OWNED = "defaultMethod must be the id of one of this customer's cards";
/** The field name bound into its ciphertext. */
export const SOCIAL_NUMBER = 'SocialNumber';

/** Where a customer's social number is stored, as bound into its ciphertext: the id in lower case. */
export function socialNumberOf(customerId: string): FieldBinding {
  return { record: customerId.toLowerCase(), field: SOCIAL_NUMBER };
}

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
  const { address, ...fields } = pickDefined(dto, WRITABLE_FIELDS);
  return address === undefined ? fields : { ...fields, address: address ? toAddress(address) : address };
}

/**
 * The customers of a platform project. Every method takes the request's scope first: a customer of
 * another project is exactly as absent as one that does not exist.
 */
@Injectable()
export class CustomersService {
  private paymentMethods?: PaymentMethodLookup;

  constructor(
    private readonly customers: CustomersRepository,
    private readonly events: InProcessEmitter,
    private readonly encryption: FieldEncryption,
    private readonly trail: AuditTrail,
    private readonly modules: ModuleRef,
  ) {}

  /** The id is made before the insert: the social number is encrypted for this one customer. */
  async create(scope: TenantScope, dto: CreateCustomerDto): Promise<CustomerCreatedData> {
    const _id = new Types.ObjectId();
    const created = await this.customers.insert(scope, { _id, ...this.storedFields(dto, String(_id)) });
    return toCustomerCreatedData(created);
  }

  /** A customer with no fields set (email null), for a card created without one. Returns its id. */
  async createBlank(scope: TenantScope): Promise<string> {
    const created = await this.customers.insert(scope, {});
    return String(created._id);
  }

  /** Newest first, `limit` per page, after the `startingAfter` cursor. */
  async list(scope: TenantScope, query: FinanceListQuery): Promise<Page<CustomerResponse>> {
    const rows = await this.customers.page(scope, query);
    return toPage(rows, query.limit, toCustomerResponse);
  }

  /** These customers as the API shows them, in no order; unknown ids (another tenant's among them) left out. */
  async findManyByIds(scope: TenantScope, ids: readonly string[]): Promise<CustomerResponse[]> {
    return (await this.customers.findByIds(scope, ids)).map(toCustomerResponse);
  }

  /** Every customer of every platform project, as its events show it, with its tenant: only for rebuilding the search index. */
  async *everyCustomer(): AsyncGenerator<{ tenant: string; object: CustomerResponse }> {
    for await (const customer of this.customers.everyTenantsCustomers(500))
      yield { tenant: String(customer.projectId), object: toCustomerResponse(customer) };
  }

  async get(scope: TenantScope, id: string): Promise<CustomerResponse> {
    const customer = await this.findById(scope, id);
    if (!customer) throw new NotFoundException(CUSTOMER_NOT_FOUND);
    return customer;
  }

  /** The customer, or null when the project has none with this id (a malformed id included). */
  async findById(scope: TenantScope, id: string): Promise<CustomerResponse | null> {
    const customer = await this.customers.findById(scope, id);
    return customer ? toCustomerResponse(customer) : null;
  }

  /**
   * The customer's default card id (null when it has none), or undefined when the project has no
   * customer with this id. Reads that one field: the charge path needs nothing else, and the whole
   * customer would be decrypted and mapped for it.
   */
  defaultMethodOf(scope: TenantScope, id: string): Promise<string | null | undefined> {
    return this.customers.defaultMethodOf(scope, id);
  }

  /** True when the project has a customer with this id. A malformed id is simply false. */
  exists(scope: TenantScope, id: string): Promise<boolean> {
    return this.customers.existsById(scope, id);
  }

  /**
   * Partial update, all or nothing: every check (the customer exists, a `defaultMethod` names one of
   * its cards) runs before the single write, so a refused update has written nothing.
   *
   * The card is looked up again after the write: when it was deleted in between, its delete may have
   * cleared the default before this write set it. The default is then cleared here, as that delete
   * would have, and the update stands: the outcome is that of the update followed by the delete.
   */
  async update(scope: TenantScope, id: string, dto: UpdateCustomerDto): Promise<CustomerResponse> {
    const set: Record<string, unknown> = this.storedFields(dto, id);
    const defaultMethod = typeof dto.defaultMethod === 'string' ? dto.defaultMethod.toLowerCase() : dto.defaultMethod;
    if (defaultMethod !== undefined) set.defaultMethod = defaultMethod;
    if (defaultMethod) {
      if (!(await this.exists(scope, id))) throw new NotFoundException(CUSTOMER_NOT_FOUND);
      if (!(await this.ownsPaymentMethod(scope, id, defaultMethod)))
        throw new BadRequestException(DEFAULT_METHOD_NOT_OWNED);
    }
    if (Object.keys(set).length === 0) return this.get(scope, id);
    const updated = await this.customers.update(scope, id, set);
    if (!updated) throw new NotFoundException(CUSTOMER_NOT_FOUND);
    if (defaultMethod && !(await this.ownsPaymentMethod(scope, id, defaultMethod))) {
      await this.clearDefaultMethodIf(scope, id, defaultMethod);
      return this.get(scope, id);
    }
    return toCustomerResponse(updated);
  }

  /**
   * Removes the customer's cards, then the customer (children first): a failure in between leaves
   * the customer in place, so a retried delete finishes the cascade instead of answering 404 over
   * orphan cards. The cards are swept once more after the customer is gone, for a card saved in the
   * meantime (a card saved after that sees its customer gone and removes itself).
   */
  async delete(scope: TenantScope, id: string): Promise<void> {
    const customer = await this.customers.findById(scope, id);
    if (!customer) throw new NotFoundException(CUSTOMER_NOT_FOUND);
    const event: CustomerDeletingEvent = { scope, customerId: id };
    await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'customer.deleted',
        target: { type: 'customer', id, label: customer.email },
        projectId: scope.projectId,
      },
      { collection: 'customers', id, exists: false },
      async () => {
        await this.events.emitAsync(CUSTOMER_DELETING, event);
        if (!(await this.customers.deleteById(scope, id))) throw new NotFoundException(CUSTOMER_NOT_FOUND);
        await this.events.emitAsync(CUSTOMER_DELETING, event);
      },
    );
  }

  /** Makes `cardId` the default only while the customer has none; true when it did. */
  async setDefaultMethodIfUnset(scope: TenantScope, customerId: string, cardId: string): Promise<boolean> {
    return this.customers.setDefaultMethodIfUnset(scope, customerId, cardId);
  }

  /** Makes `cardId` the default; the updated customer, or null when the project has no such customer. */
  async setDefaultMethod(scope: TenantScope, customerId: string, cardId: string): Promise<CustomerResponse | null> {
    const updated = await this.customers.setDefaultMethod(scope, customerId, cardId);
    return updated ? toCustomerResponse(updated) : null;
  }

  /** Clears the default only while it is still `cardId`; true when it did. */
  async clearDefaultMethodIf(scope: TenantScope, customerId: string, cardId: string): Promise<boolean> {
    return this.customers.clearDefaultMethodIf(scope, customerId, cardId);
  }

  /**
   * The writable fields as stored: the social number encrypted for this customer (its id and the
   * field's name bound in), never in plain text.
   */
  private storedFields(dto: CreateCustomerDto | UpdateCustomerDto, customerId: string): CustomerFields {
    const fields = customerFields(dto);
    if (typeof fields.SocialNumber === 'string')
      fields.SocialNumber = this.encryption.encrypt(fields.SocialNumber, socialNumberOf(customerId));
    return fields;
  }

  /**
   * Asks the cards module, which provides the lookup without this module importing it; found on first
   * use, so a context without cards (the re-encryption command) still starts.
   */
  private ownsPaymentMethod(scope: TenantScope, customerId: string, methodId: string): Promise<boolean> {
    this.paymentMethods ??= this.modules.get(PaymentMethodLookup, { strict: false });
    return this.paymentMethods.belongsTo(scope, methodId, customerId);
  }
}
