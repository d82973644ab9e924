import { auditContextOf } from '../audit/audit-draft';
import { auditEntryIdOf, AuditTrail } from '../audit/audit-trail';
import type { RefundSettlements, RefundState } from '../audit/audit.ports';
import {
  BadRequestException,
  ConflictException,
  HttpException,
  Injectable,
  Logger,
  NotFoundException,
  type OnModuleDestroy,
  type OnModuleInit,
  UnprocessableEntityException,
} from '@nestjs/common';
import { Types } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import type { IdempotentRequest } from '../idempotency/idempotent-request';
import { CardsService } from '../cards/cards.service';
import { formatMinorUnits, MoneyError, toMinorUnits } from '../common/money/money';
import { Page, toPage } from '../common/paging/finance-list.query';
import { CustomersService } from '../customers/customers.service';
import { CreatePaymentDto } from './dto/create-payment.dto';
import { ListPaymentsQuery } from './dto/list-payments.query';
import { PaymentResponse } from './dto/payment.response';
import { RefundPaymentDto } from './dto/refund-payment.dto';
import { CONFIRMABLE_STATUSES, Payment, REFUNDABLE_STATUSES } from './payment.schema';
import { PaymentKeys } from './payment-keys';
import { Refund } from './refund.schema';
import { RefundsRepository } from './refunds.repository';
import { KEY_REUSED_MESSAGE } from '../idempotency/request-fingerprint';
import { JobRunner, type JobHandle } from '../jobs/job-runner';
import { Leases } from '../leases/leases.service';
import { toPaymentResponse } from './payments.mapper';
import { chargeOutcome, statusAfterRefund } from './payments.rules';
import { scopeOfRecord, type TenantScope } from '../tenancy/tenant-scope';
import { PaymentsRepository } from './payments.repository';

const PAYMENT_BUSY = 'Another change to this payment is in progress; retry the request';
const REFUND_VOIDED = 'The refund under this Idempotency-Key was voided: the payment could no longer take it';
/** A refund written this long ago and still pending was left by a request that stopped: the sweep settles it. */
const REFUND_GRACE_MS = 15_000;
const REFUND_SWEEP_INTERVAL_MS = 10_000;
/** The sweep's hold on a payment's lease: as long as a request's. */
const REFUND_SWEEP_HOLD_MS = 15_000;
export const PAYMENT_NOT_FOUND = 'Payment not found';

/** A created payment, or the one an earlier run under the same Idempotency-Key created (`replayed`). */
export interface CreatedPayment {
  payment: PaymentResponse;
  replayed: boolean;
}

/**
 * The payments of a platform project. Every method takes the request's scope first: a payment, a
 * customer or a reciver of another project is exactly as absent as one that does not exist.
 *
 * A refund is money: it is in the payment's totals exactly when the payment lists its record
 * (`refundIds`), and its record is `pending` until then. A request that stops between writing the
 * record and applying it leaves it pending; its retry or, past its grace, the sweep applies it when
 * the payment can still take it and voids it otherwise, under the payment's lease, so the refund's
 * event is recorded with the update that applies it and at most once. Its audit entry is judged by
 * the same fact (the payment lists it) and waits while the record is pending.
 */
@Injectable()
export class PaymentsService implements OnModuleInit, OnModuleDestroy, RefundSettlements {
  private readonly logger = new Logger(PaymentsService.name);
  private sweepJob?: JobHandle;

  constructor(
    private readonly payments: PaymentsRepository,
    private readonly customers: CustomersService,
    private readonly cards: CardsService,
    private readonly leases: Leases,
    private readonly paymentKeys: PaymentKeys,
    private readonly refunds: RefundsRepository,
    private readonly trail: AuditTrail,
    private readonly jobs: JobRunner,
  ) {}

  /** Every instance sweeps: each left refund is settled under its payment's lease. */
  onModuleInit(): void {
    this.sweepJob = this.jobs.register({
      name: 'payments.refund-sweep',
      everyMs: REFUND_SWEEP_INTERVAL_MS,
      run: () => this.settleLeftRefunds(),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.sweepJob?.stop();
  }

  /**
   * Creates a payment. With an `Idempotency-Key` (`idempotency`), the key is claimed for the new
   * payment's id before the payment is written (see PaymentKeys): a request that runs again under
   * the same key, after the idempotency guard dropped its record, finds that payment and answers it
   * (`replayed`), or creates it under the same id when the first run stopped before writing it; the
   * same key with another request is 422. Every check that can refuse the request runs first, so a
   * refused request claims nothing.
   */
  async create(
    scope: TenantScope,
    dto: CreatePaymentDto,
    idempotency: IdempotentRequest | null,
  ): Promise<CreatedPayment> {
    const currency = dto.currency.toLowerCase();
    const amountMinor = minorUnits(dto.amount, currency);
    const customer = dto.customer.toLowerCase();
    const reciver = dto.reciver ? dto.reciver.toLowerCase() : null;
    if (reciver === customer) throw new BadRequestException('reciver must be a different customer than customer');

    if (idempotency) {
      const earlier = await this.paymentKeys.find(scope, idempotency);
      const payment = earlier && (await this.findById(scope, earlier));
      if (payment) return { payment: toPaymentResponse(payment), replayed: true };
    }

    const [customerExists, reciverExists] = await Promise.all([
      this.customers.exists(scope, customer),
      reciver ? this.customers.exists(scope, reciver) : Promise.resolve(true),
    ]);
    if (!customerExists) throw new BadRequestException('customer does not exist');
    if (!reciverExists) throw new BadRequestException('reciver does not exist');

    const candidate = new Types.ObjectId();
    let paymentId = candidate;
    if (idempotency) {
      paymentId = await this.paymentKeys.reserve(scope, idempotency, candidate);
      // A key this request just claimed stands for the fresh candidate id, which no payment can have
      // yet: only an earlier claim's id is looked up (on FerretDB that read scans the project's payments).
      const payment = paymentId.equals(candidate) ? null : await this.findById(scope, paymentId);
      if (payment) return { payment: toPaymentResponse(payment), replayed: true };
    }

    const charge = dto.confirm
      ? chargeOutcome(await this.cards.getDefaultCardForCharge(scope, customer))
      : { status: 'requires_confirmation' as const, failureCode: null, card: null };
    try {
      const created = await this.payments.insert(scope, {
        _id: paymentId,
        amountMinor,
        currency,
        customer,
        reciver,
        description: dto.description ?? null,
        status: charge.status,
        failureCode: charge.failureCode,
        card: charge.card,
        amountRefundedMinor: 0,
      });
      return { payment: toPaymentResponse(created), replayed: false };
    } catch (error) {
      // Another run under the same key wrote this id first: answer its payment.
      const payment = idempotency && isDuplicateKey(error) ? await this.findById(scope, paymentId) : null;
      if (payment) return { payment: toPaymentResponse(payment), replayed: true };
      throw error;
    }
  }

  async get(scope: TenantScope, id: string): Promise<PaymentResponse> {
    return toPaymentResponse(await this.findOrThrow(scope, id));
  }

  /** These payments as the API shows them, in no order; unknown ids (another tenant's among them) left out. */
  async findManyByIds(scope: TenantScope, ids: readonly string[]): Promise<PaymentResponse[]> {
    return (await this.payments.findByIds(scope, ids)).map(toPaymentResponse);
  }

  /** Every payment of every platform project, as its events show it, with its tenant: only for rebuilding the search index. */
  async *everyPayment(): AsyncGenerator<{ tenant: string; object: PaymentResponse }> {
    for await (const payment of this.payments.everyTenantsPayments(500))
      yield { tenant: String(payment.projectId), object: toPaymentResponse(payment) };
  }

  async list(scope: TenantScope, query: ListPaymentsQuery): Promise<Page<PaymentResponse>> {
    return toPage(await this.payments.page(scope, query), query.limit, toPaymentResponse);
  }

  /**
   * Charges the customer's default card. Confirmations of one payment run one at a time, and the
   * update applies only while the payment is still confirmable, so of concurrent confirmations
   * exactly one charges; the others get 409.
   */
  async confirm(scope: TenantScope, id: string): Promise<PaymentResponse> {
    // Found in the caller's project before any lease is taken: another project's payment is a 404.
    await this.findOrThrow(scope, id);
    return this.leases.withLease(`payment:${id}`, PAYMENT_BUSY, async () => {
      const payment = await this.findOrThrow(scope, id);
      if (!CONFIRMABLE_STATUSES.includes(payment.status)) throw notConfirmable(payment.status);
      const charge = chargeOutcome(await this.cards.getDefaultCardForCharge(scope, String(payment.customer)));
      const updated = await this.payments.applyCharge(scope, payment._id, {
        status: charge.status,
        failureCode: charge.failureCode,
        card: charge.card,
      });
      if (updated) return toPaymentResponse(updated);
      throw notConfirmable((await this.findOrThrow(scope, id)).status);
    });
  }

  /**
   * Where a refund stands, for the audit log's sweep: applied when the payment lists it (its totals
   * include it), pending while its record waits for a retry or this module's sweep, else not applied.
   */
  async refundState(scope: TenantScope, paymentId: string, refundId: string): Promise<RefundState> {
    const payment = await this.payments.findById(scope, paymentId);
    if ((payment?.refundIds ?? []).includes(refundId)) return 'applied';
    const refund = await this.refunds.findById(scope, refundId);
    return refund?.status === 'pending' ? 'pending' : 'not-applied';
  }

  /**
   * Refunds `amount` (default: all that is left). Refunds of one payment run one at a time under its
   * lease. Each refund is first written as its own record (`refunds`, pending), then applied to the
   * payment by one conditional update that also lists the refund in `refundIds`: the totals can
   * include a refund once only. With an `Idempotency-Key` the refund's id is the key itself (per
   * project and caller), so a retry, even one that runs again after its idempotency record was
   * dropped, finds that refund: it answers the payment as it is, applying the refund first if the
   * earlier run stopped before it did. The same key with another request is 422. The audit entry
   * has an id of the refund's, so every run of one refund makes one entry.
   */
  async refund(
    scope: TenantScope,
    id: string,
    dto: RefundPaymentDto,
    idempotency: IdempotentRequest | null,
  ): Promise<PaymentResponse> {
    const paymentId = String((await this.findOrThrow(scope, id))._id);
    const refundId = idempotency
      ? `${scope.projectId}:${idempotency.caller}:${idempotency.key}`
      : new Types.ObjectId().toHexString();
    // Money went back when the payment lists the refund; while its record is pending, this module's sweep has still to apply or void it (refundState).
    return this.trail.record(
      auditContextOf(scope),
      {
        entryId: auditEntryIdOf(`refund:${refundId}`),
        accountId: scope.accountId,
        action: 'payment.refunded',
        target: { type: 'payment', id: paymentId, label: null },
        projectId: scope.projectId,
      },
      { refund: { paymentId, refundId } },
      () => this.refundUnderLease(scope, paymentId, dto, idempotency, refundId),
    );
  }

  private refundUnderLease(
    scope: TenantScope,
    id: string,
    dto: RefundPaymentDto,
    idempotency: IdempotentRequest | null,
    refundId: string,
  ): Promise<PaymentResponse> {
    return this.leases.withLease(`payment:${id}`, PAYMENT_BUSY, async () => {
      const payment = await this.findOrThrow(scope, id);
      const earlier = idempotency ? await this.refunds.findById(scope, refundId) : null;
      if (earlier)
        return toPaymentResponse(await this.applyWritten(scope, payment, checkedRefund(earlier, idempotency!)));

      assertRefundable(payment);
      const refundMinor =
        dto.amount === undefined ? leftToRefund(payment) : minorUnits(dto.amount, payment.currency, 'refund amount');
      assertFits(payment, refundMinor);
      let refund: Refund;
      try {
        refund = await this.refunds.insert(scope, {
          _id: refundId,
          paymentId: payment._id,
          amountMinor: refundMinor,
          fingerprint: idempotency?.fingerprint ?? null,
          accountId: scope.accountId,
          requestId: scope.origin.id,
          idempotencyKey: scope.origin.idempotencyKey,
        });
      } catch (error) {
        // Only a run that bypassed the lease (an expired one) can have written this key's refund first.
        const raced = idempotency && isDuplicateKey(error) ? await this.refunds.findById(scope, refundId) : null;
        if (!raced) throw error;
        refund = checkedRefund(raced, idempotency!);
      }
      return toPaymentResponse(await this.applyWritten(scope, payment, refund));
    });
  }

  /**
   * Applies a written refund to the payment unless its totals include it already, under the
   * payment's lease. A refund the payment refuses (no longer refundable, too large, or changed by a
   * writer that bypassed the lease) is voided: it will never be applied, and the refusal is the
   * answer. Any other failure leaves it pending, for a retry or the sweep.
   */
  private async applyWritten(scope: TenantScope, payment: Payment, refund: Refund): Promise<Payment> {
    if ((payment.refundIds ?? []).includes(refund._id)) {
      await this.markRefund(scope, refund._id, 'applied');
      return payment;
    }
    if (refund.status === 'voided') throw new ConflictException(REFUND_VOIDED);
    let updated: Payment | null;
    try {
      assertRefundable(payment);
      assertFits(payment, refund.amountMinor);
      const status = statusAfterRefund(payment.amountMinor, payment.amountRefundedMinor + refund.amountMinor);
      updated = await this.payments.applyRefund(
        scope,
        payment,
        { id: refund._id, amountMinor: refund.amountMinor },
        status,
      );
      if (!updated) throw new ConflictException('The payment changed during the refund; retry the request');
    } catch (error) {
      if (error instanceof HttpException) await this.refunds.settle(scope, refund._id, 'voided');
      throw error;
    }
    await this.markRefund(scope, refund._id, 'applied');
    return updated;
  }

  /** Marks a refund the payment lists as applied; a failure here changes nothing the payment says, and the sweep marks it later. */
  private async markRefund(scope: TenantScope, refundId: string, status: 'applied'): Promise<void> {
    await this.refunds
      .settle(scope, refundId, status)
      .catch((error: Error) =>
        this.logger.warn(`Marking refund ${refundId} ${status} failed, left to the sweep: ${error.message}`),
      );
  }

  /**
   * Applies or voids the refunds still pending `graceMs` after they were written (their request
   * stopped in between), each in its own project and in its request's name, under its payment's
   * lease; a payment whose lease is held is left to the next sweep. Returns how many it settled.
   */
  async settleLeftRefunds(graceMs = REFUND_GRACE_MS): Promise<number> {
    let settled = 0;
    for (const left of await this.refunds.pendingBefore(new Date(Date.now() - graceMs), 100)) {
      if (!left.accountId) continue;
      const scope = scopeOfRecord(
        { accountId: left.accountId, projectId: left.projectId },
        { id: left.requestId, idempotencyKey: left.idempotencyKey },
      );
      const done = await this.leases.tryWithLease(
        `payment:${String(left.paymentId)}`,
        REFUND_SWEEP_HOLD_MS,
        async () => {
          const refund = await this.refunds.findById(scope, left._id);
          if (refund?.status !== 'pending') return true;
          const payment = await this.payments.findById(scope, refund.paymentId);
          if (!payment) {
            await this.refunds.settle(scope, refund._id, 'voided');
            return true;
          }
          // A refusal voids the refund: settled all the same.
          await this.applyWritten(scope, payment, refund).catch((error: Error) => {
            if (!(error instanceof HttpException)) throw error;
          });
          return true;
        },
      );
      if (done) settled++;
    }
    return settled;
  }

  private findById(scope: TenantScope, id: Types.ObjectId): Promise<Payment | null> {
    return this.payments.findById(scope, id);
  }

  private async findOrThrow(scope: TenantScope, id: string): Promise<Payment> {
    const payment = await this.payments.findById(scope, id);
    if (!payment) throw new NotFoundException(PAYMENT_NOT_FOUND);
    return payment;
  }
}

function minorUnits(amount: number, currency: string, what = 'amount'): number {
  try {
    return toMinorUnits(amount, currency);
  } catch (error) {
    if (error instanceof MoneyError) throw new BadRequestException(error.message.replace(/^amount/, what));
    throw error;
  }
}

/** 409 for a payment that cannot be refunded. */
function assertRefundable(payment: Payment): void {
  if (REFUNDABLE_STATUSES.includes(payment.status)) return;
  throw new ConflictException(
    payment.status === 'refunded'
      ? 'Payment is already fully refunded'
      : `Payment cannot be refunded: its status is ${payment.status}; only succeeded or partially refunded payments can be`,
  );
}

function leftToRefund(payment: Payment): number {
  return payment.amountMinor - payment.amountRefundedMinor;
}

/** 400 for a refund of more than is left. */
function assertFits(payment: Payment, refundMinor: number): void {
  const leftMinor = leftToRefund(payment);
  if (refundMinor <= leftMinor) return;
  throw new BadRequestException(
    `Refund amount ${formatMinorUnits(refundMinor, payment.currency)} exceeds the ${formatMinorUnits(leftMinor, payment.currency)} ${payment.currency} left to refund`,
  );
}

/** An earlier refund under the request's key: the same request only (422 otherwise). */
function checkedRefund(refund: Refund, request: IdempotentRequest): Refund {
  if (refund.fingerprint !== request.fingerprint) throw new UnprocessableEntityException(KEY_REUSED_MESSAGE);
  return refund;
}

function notConfirmable(status: string): ConflictException {
  return new ConflictException(
    `Payment cannot be confirmed: its status is ${status}; only a payment in requires_confirmation or requires_payment_method can be`,
  );
}
