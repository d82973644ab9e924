import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyKeys, Model, Types } from 'mongoose';
import { olderThan, type FinanceListQuery } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import { type RecordedChange, TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { EventRelay } from '../events/event-relay';
import { Customer } from './customer.schema';
import { toCustomerResponse } from './customers.mapper';

/** A stored social number, with what the re-encryption needs to rewrite it in place. */
export interface StoredSocialNumber {
  _id: Types.ObjectId;
  projectId: Types.ObjectId;
  SocialNumber: string;
}

/** A change of the default card: its event says which card it was before. */
const DEFAULT_CARD_CHANGED: RecordedChange = { event: 'customer.default_card_changed', diff: true };

/** How many stored social numbers the re-encryption reads at a time. */
const SOCIAL_NUMBER_BATCH = 500;

/** The customers collection: the only code that reads or writes it. */
@Injectable()
export class CustomersRepository {
  private readonly records: TenantRecords<Customer>;
  /** Every tenant's customers at once: only for the operator's re-encryption and the search index's rebuild, below. */
  private readonly everyTenant: Records<Customer>;

  constructor(@InjectModel(Customer.name) model: Model<Customer>, relay: EventRelay) {
    // The response leaves the social number out, so events do too.
    this.records = new TenantRecords(model, relay.recorder(new Records(model), toCustomerResponse));
    this.everyTenant = new Records(model);
  }

  /** Inserts a customer (with the `_id` given, when its fields were made for that id); returns it as stored. */
  insert(scope: TenantScope, fields: AnyKeys<Customer>): Promise<Customer> {
    return this.records.insert(scope, fields, ['customer.created']);
  }

  /** Newest first, `limit + 1` rows after the cursor (the extra row says whether more follow). */
  page(scope: TenantScope, query: FinanceListQuery): Promise<Customer[]> {
    return this.records.find(scope, olderThan(query.startingAfter), { sort: { _id: -1 }, limit: query.limit + 1 });
  }

  /** These customers of the scope, in no order; malformed and unknown ids left out. */
  findByIds(scope: TenantScope, ids: readonly string[]): Promise<Customer[]> {
    const known = ids.flatMap((id) => toObjectId(id) ?? []);
    return known.length === 0 ? Promise.resolve([]) : this.records.find(scope, { _id: { $in: known } });
  }

  /** Every customer of every tenant, in `_id` order, a batch at a time: the search index's rebuild reads them all. */
  everyTenantsCustomers(batch: number): AsyncGenerator<Customer> {
    return this.everyTenant.eachInIdOrder({}, batch);
  }

  /** The customer, or null when the project has none with this id (a malformed id included). */
  findById(scope: TenantScope, id: string): Promise<Customer | null> {
    return this.records.findById(scope, id);
  }

  /** The customer's default card id (null when none), or undefined when the project has no such customer. */
  async defaultMethodOf(scope: TenantScope, id: string): Promise<string | null | undefined> {
    const customer = await this.records.findById<Pick<Customer, 'defaultMethod'>>(
      scope,
      id,
      {},
      { fields: ['defaultMethod'] },
    );
    return customer ? (customer.defaultMethod ?? null) : undefined;
  }

  existsById(scope: TenantScope, id: string): Promise<boolean> {
    return this.records.existsById(scope, id);
  }

  /** Sets the fields (validated as the schema says); the customer after, or null when there is none. */
  update(scope: TenantScope, id: string, set: Record<string, unknown>): Promise<Customer | null> {
    const _id = toObjectId(id);
    return _id
      ? this.records.updateAndGet(
          scope,
          { _id },
          { $set: set },
          { validate: true, event: 'customer.updated', diff: true },
        )
      : Promise.resolve(null);
  }

  /** Removes the customer; true when it did. */
  deleteById(scope: TenantScope, id: string): Promise<boolean> {
    const _id = toObjectId(id);
    return _id ? this.records.deleteOne(scope, { _id }, { event: 'customer.deleted' }) : Promise.resolve(false);
  }

  /** Makes `cardId` the default only while the customer has none; true when it did. */
  async setDefaultMethodIfUnset(scope: TenantScope, customerId: string, cardId: string): Promise<boolean> {
    const _id = toObjectId(customerId);
    if (!_id) return false;
    return (
      (
        await this.records.updateOne(
          scope,
          { _id, defaultMethod: null },
          { $set: { defaultMethod: cardId } },
          DEFAULT_CARD_CHANGED,
        )
      ).modified > 0
    );
  }

  /** Makes `cardId` the default; the customer after, or null when there is none. */
  setDefaultMethod(scope: TenantScope, customerId: string, cardId: string): Promise<Customer | null> {
    const _id = toObjectId(customerId);
    return _id
      ? this.records.updateAndGet(scope, { _id }, { $set: { defaultMethod: cardId } }, DEFAULT_CARD_CHANGED)
      : Promise.resolve(null);
  }

  /** Clears the default only while it is still `cardId`; true when it did. */
  async clearDefaultMethodIf(scope: TenantScope, customerId: string, cardId: string): Promise<boolean> {
    const _id = toObjectId(customerId);
    if (!_id) return false;
    return (
      (
        await this.records.updateOne(
          scope,
          { _id, defaultMethod: cardId },
          { $set: { defaultMethod: null } },
          DEFAULT_CARD_CHANGED,
        )
      ).modified > 0
    );
  }

  /** Whether the project holds any customer (a platform project's delete asks). */
  holdsAny(scope: TenantScope): Promise<boolean> {
    return this.records.exists(scope);
  }

  /**
   * Every stored social number of every tenant, in `_id` order, a batch at a time: the operator's
   * `npm run reencrypt` rewrites them all, so it is the one reader that is not narrowed to a scope.
   */
  async *storedSocialNumbers(): AsyncGenerator<StoredSocialNumber> {
    let after: Types.ObjectId | undefined;
    for (;;) {
      const batch = (await this.everyTenant.find(
        { SocialNumber: { $type: 'string' }, ...(after ? { _id: { $gt: after } } : {}) },
        { sort: { _id: 1 }, limit: SOCIAL_NUMBER_BATCH, fields: ['projectId', 'SocialNumber'] },
      )) as unknown as StoredSocialNumber[];
      yield* batch;
      if (batch.length < SOCIAL_NUMBER_BATCH) return;
      after = batch[batch.length - 1]._id;
    }
  }

  /**
   * Replaces a stored social number only while it is still `stored`, so a customer updated meanwhile
   * keeps its new value; true when it did. Filters by the record's own project, as every write of a
   * tenant's record does.
   */
  async replaceSocialNumber(record: StoredSocialNumber, replacement: string): Promise<boolean> {
    const filter = { _id: record._id, projectId: record.projectId, SocialNumber: record.SocialNumber };
    return (await this.everyTenant.updateOne(filter, { $set: { SocialNumber: replacement } })).modified > 0;
  }
}
