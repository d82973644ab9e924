import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyKeys, Model } from 'mongoose';
import { olderThan, type FinanceListQuery } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { EventRelay } from '../events/event-relay';
import { Card } from './card.schema';
import { toCardEventObject } from './cards.mapper';

export interface Expiry {
  expMonth: number;
  expYear: number;
}

/** The cards collection: the only code that reads or writes it. */
@Injectable()
export class CardsRepository {
  private readonly records: TenantRecords<Card>;

  constructor(@InjectModel(Card.name) model: Model<Card>, relay: EventRelay) {
    this.records = new TenantRecords(model, relay.recorder(new Records(model), toCardEventObject));
  }

  /** Inserts a card; returns it as stored. */
  insert(scope: TenantScope, fields: AnyKeys<Card>): Promise<Card> {
    return this.records.insert(scope, fields, ['card.created']);
  }

  /** The card, or null when the project has none with this id (a malformed id included). */
  findById(scope: TenantScope, id: string): Promise<Card | null> {
    return this.records.findById(scope, id);
  }

  existsById(scope: TenantScope, id: string): Promise<boolean> {
    return this.records.existsById(scope, id);
  }

  /** One customer's cards, newest first, `limit + 1` rows after the cursor. */
  pageOfCustomer(scope: TenantScope, customerId: string, query: FinanceListQuery): Promise<Card[]> {
    const customer = toObjectId(customerId);
    if (!customer) return Promise.resolve([]);
    return this.records.find(
      scope,
      { customer, ...olderThan(query.startingAfter) },
      { sort: { _id: -1 }, limit: query.limit + 1 },
    );
  }

  /** The card with this id when it belongs to this customer; else null. */
  findOfCustomer(scope: TenantScope, cardId: string, customerId: string): Promise<Card | null> {
    const customer = toObjectId(customerId);
    return customer ? this.records.findById(scope, cardId, { customer }) : Promise.resolve(null);
  }

  /** Whether this customer owns a card with this id. */
  belongsTo(scope: TenantScope, cardId: string, customerId: string): Promise<boolean> {
    const customer = toObjectId(customerId);
    return customer ? this.records.existsById(scope, cardId, { customer }) : Promise.resolve(false);
  }

  /**
   * Sets the expiry only while it is still `current` (the values the new one was checked against);
   * the card after, or null when it is gone or was changed meanwhile.
   */
  updateExpiryIf(scope: TenantScope, id: string, current: Expiry, next: Expiry): Promise<Card | null> {
    const _id = toObjectId(id);
    if (!_id) return Promise.resolve(null);
    return this.records.updateAndGet(
      scope,
      { _id, ...current },
      { $set: { expMonth: next.expMonth, expYear: next.expYear } },
      { event: 'card.updated', diff: true },
    );
  }

  /** Removes the card; true when it did. */
  deleteById(scope: TenantScope, id: string): Promise<boolean> {
    const _id = toObjectId(id);
    return _id ? this.records.deleteOne(scope, { _id }, { event: 'card.deleted' }) : Promise.resolve(false);
  }

  /** Removes every card of the customer, each recorded as `card.deleted`; the number removed. */
  deleteAllOfCustomer(scope: TenantScope, customerId: string): Promise<number> {
    const customer = toObjectId(customerId);
    return customer ? this.records.deleteMany(scope, { customer }, { event: 'card.deleted' }) : Promise.resolve(0);
  }

  /** Whether the project holds any card (a platform project's delete asks). */
  holdsAny(scope: TenantScope): Promise<boolean> {
    return this.records.exists(scope);
  }
}
