import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyKeys, Model, Types } from 'mongoose';
import { olderThan } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import type { RecordedEventType } from '../tenancy/recorded-event-types';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { ListPaymentsQuery } from './dto/list-payments.query';
import { CONFIRMABLE_STATUSES, Payment, REFUNDABLE_STATUSES, type PaymentStatus } from './payment.schema';
import { SUMMARY_STATUSES, type SummaryRow } from './payments-summary';
import type { ChargeOutcome } from './payments.rules';
import { EventRelay } from '../events/event-relay';
import { toPaymentResponse } from './payments.mapper';

/** The payments collection: the only code that reads or writes it. */
@Injectable()
export class PaymentsRepository {
  private readonly records: TenantRecords<Payment>;
  /** Every tenant's payments at once: only for rebuilding the search index, below. */
  private readonly everyTenant: Records<Payment>;

  constructor(@InjectModel(Payment.name) model: Model<Payment>, relay: EventRelay) {
    this.records = new TenantRecords(model, relay.recorder(new Records(model), toPaymentResponse));
    this.everyTenant = new Records(model);
  }

  /** These payments of the scope, in no order; malformed and unknown ids left out. */
  findByIds(scope: TenantScope, ids: readonly string[]): Promise<Payment[]> {
    const known = ids.flatMap((id) => toObjectId(id) ?? []);
    return known.length === 0 ? Promise.resolve([]) : this.records.find(scope, { _id: { $in: known } });
  }

  /** Every payment of every tenant, in `_id` order, a batch at a time: the search index's rebuild reads them all. */
  everyTenantsPayments(batch: number): AsyncGenerator<Payment> {
    return this.everyTenant.eachInIdOrder({}, batch);
  }

  /** Inserts a payment (under the id given, when a key claimed one); a taken id is a duplicate-key error. */
  insert(scope: TenantScope, fields: AnyKeys<Payment>): Promise<Payment> {
    return this.records.insert(scope, fields, ['payment.created', ...outcomeEvents(fields.status as PaymentStatus)]);
  }

  /** The payment, or null when the project has none with this id (a malformed id included). */
  findById(scope: TenantScope, id: string | Types.ObjectId): Promise<Payment | null> {
    return this.records.findById(scope, String(id));
  }

  /** Newest first, `limit + 1` rows after the cursor, of one customer and in one status when asked. */
  page(scope: TenantScope, query: ListPaymentsQuery): Promise<Payment[]> {
    const conditions: Record<string, unknown> = { ...olderThan(query.startingAfter) };
    if (query.customer) conditions.customer = toObjectId(query.customer);
    if (query.status) conditions.status = query.status;
    return this.records.find(scope, conditions, { sort: { _id: -1 }, limit: query.limit + 1 });
  }

  /** Records a charge's outcome while the payment is still confirmable; the payment after, or null. */
  applyCharge(scope: TenantScope, id: Types.ObjectId, charge: ChargeOutcome): Promise<Payment | null> {
    const [event] = outcomeEvents(charge.status);
    return this.records.updateAndGet(
      scope,
      { _id: id, status: { $in: CONFIRMABLE_STATUSES } },
      { $set: { ...charge } },
      { event, diff: true },
    );
  }

  /**
   * Adds a refund to the payment's totals, only while the refunded total is still `payment`'s, the
   * refund fits, the payment is refundable and does not list the refund yet; the payment after, or null.
   */
  applyRefund(
    scope: TenantScope,
    payment: Payment,
    refund: { id: string; amountMinor: number },
    status: PaymentStatus,
  ): Promise<Payment | null> {
    const { amountMinor, amountRefundedMinor } = payment;
    return this.records.updateAndGet(
      scope,
      {
        _id: payment._id,
        amountMinor,
        status: { $in: REFUNDABLE_STATUSES },
        amountRefundedMinor: { $eq: amountRefundedMinor, $lte: amountMinor - refund.amountMinor },
        refundIds: { $ne: refund.id },
      },
      {
        $set: { amountRefundedMinor: amountRefundedMinor + refund.amountMinor, status },
        $push: { refundIds: refund.id },
      },
      { event: 'payment.refunded', diff: true },
    );
  }

  /** The project's payments in `currency` that moved money, created in [start, end): only the fields a summary adds up. */
  summaryRows(scope: TenantScope, currency: string, start: Date, end: Date): AsyncIterable<SummaryRow> {
    return this.records.aggregateEach<SummaryRow>(
      scope,
      { currency, status: { $in: SUMMARY_STATUSES }, createdAt: { $gte: start, $lt: end } },
      [{ $project: { _id: 0, createdAt: 1, amountMinor: 1, amountRefundedMinor: 1 } }],
    );
  }

  /** Whether the project holds any payment (a platform project's delete asks). */
  holdsAny(scope: TenantScope): Promise<boolean> {
    return this.records.exists(scope);
  }
}

/** The events a payment's charge outcome records: succeeded or failed; none while it waits. */
function outcomeEvents(status: PaymentStatus): RecordedEventType[] {
  if (status === 'succeeded') return ['payment.succeeded'];
  if (status === 'failed') return ['payment.failed'];
  return [];
}
