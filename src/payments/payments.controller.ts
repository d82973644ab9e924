import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Idempotency, type IdempotentRequest } from '../idempotency/idempotent-request';
import { IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/request-fingerprint';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { CreatePaymentDto } from './dto/create-payment.dto';
import { ListPaymentsQuery } from './dto/list-payments.query';
import { PaymentSummaryQuery } from './dto/payment-summary.query';
import { PaymentSummaryResponse } from './dto/payment-summary.response';
import { PaymentListResponse, PaymentResponse } from './dto/payment.response';
import { RefundPaymentDto } from './dto/refund-payment.dto';
import { PaymentsService } from './payments.service';
import { PaymentsSummaryService } from './payments-summary.service';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Idempotent } from '../idempotency/idempotent.decorator';

const IDEMPOTENCY_NOTE =
  ' Send an `Idempotency-Key` header to make retries safe: a retry with the same key and body returns the first response ' +
  '(with `Idempotent-Replayed: true`) and changes nothing.';
const CREATE_IDEMPOTENCY_NOTE =
  IDEMPOTENCY_NOTE +
  ' A payment keeps its key for 24 hours: a retry never creates a second payment, even when the first request was cut off ' +
  'mid-way; it gets the payment as it now stands.';

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const PAYMENTS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'payments',
  assurance: 'accountMfa',
};

@ApiTags('payments')
@Controller('api/v1/payments')
export class PaymentsController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly summaries: PaymentsSummaryService,
  ) {}

  @Access({ ...PAYMENTS_ACCESS, verifiedEmail: true })
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a payment',
    description:
      "Without `confirm: true` the payment waits in `requires_confirmation`. With it, the customer's default card is charged at once: " +
      '`succeeded`, `failed` with a `failureCode` for a declining test card, or `requires_payment_method` when the customer has no default card. ' +
      'An unknown `customer` or `reciver`, or a `reciver` equal to `customer`, is 400. Returns the payment itself, not wrapped.' +
      CREATE_IDEMPOTENCY_NOTE,
  })
  @ApiCreatedResponse({ type: PaymentResponse, description: 'The payment' })
  @ApiErrorResponses(400, 401, 403, 409, 413, 415, 422, 500, 503)
  async createPayment(
    @Tenant() scope: TenantScope,
    @Body() dto: CreatePaymentDto,
    @Idempotency() idempotency: IdempotentRequest | null,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PaymentResponse> {
    const { payment, replayed } = await this.payments.create(scope, dto, idempotency);
    if (replayed) reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return payment;
  }

  @Access(PAYMENTS_ACCESS)
  @Get()
  @ApiOperation({
    summary: 'List payments',
    description: 'Newest first, cursor-paged with `limit` and `startingAfter`; filter by `customer` and `status`.',
  })
  @ApiOkResponse({ type: PaymentListResponse, description: 'A page of payments' })
  @ApiErrorResponses(400, 401, 500, 503)
  listPayments(@Tenant() scope: TenantScope, @Query() query: ListPaymentsQuery): Promise<PaymentListResponse> {
    return this.payments.list(scope, query);
  }

  @Access(PAYMENTS_ACCESS)
  // Declared before `:id`, so `summary` is never read as a payment id.
  @Get('summary')
  @ApiOperation({
    summary: 'Payment volume per day',
    description:
      'For one `currency`, per UTC day of the period (`from` to `to`, inclusive; default the last 30 days, at most 366): ' +
      '`gross` (the amounts of payments that were charged: `succeeded`, `partially_refunded`, `refunded`), `refunded` ' +
      '(what has been refunded of them so far), `net` and `count`, in major units, and the totals. A payment counts on the day it ' +
      'was created, its refunds with it. Every day of the period is listed, oldest first. `from` after `to`, or a longer ' +
      'period, is 400.',
  })
  @ApiOkResponse({ type: PaymentSummaryResponse, description: 'The volume per day and the totals' })
  @ApiErrorResponses(400, 401, 500, 503)
  getPaymentSummary(
    @Tenant() scope: TenantScope,
    @Query() query: PaymentSummaryQuery,
  ): Promise<PaymentSummaryResponse> {
    return this.summaries.summarize(scope, query);
  }

  @Access(PAYMENTS_ACCESS)
  @Get(':id')
  @ApiOperation({ summary: 'Get a payment', description: 'The payment itself, not wrapped.' })
  @ApiOkResponse({ type: PaymentResponse, description: 'The payment' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  getPayment(@Tenant() scope: TenantScope, @Param('id', ParseObjectIdPipe) id: string): Promise<PaymentResponse> {
    return this.payments.get(scope, id);
  }

  @Access({ ...PAYMENTS_ACCESS, verifiedEmail: true })
  @Post(':id/confirm')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Confirm a payment',
    description:
      "Charges the customer's default card, for a payment in `requires_confirmation` or `requires_payment_method`: it becomes " +
      '`succeeded`, `failed` (see `failureCode`), or stays `requires_payment_method` while the customer has no default card. ' +
      'Any other status is 409; of concurrent confirmations exactly one charges.' +
      IDEMPOTENCY_NOTE,
  })
  @ApiOkResponse({ type: PaymentResponse, description: 'The confirmed payment' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 500, 503)
  confirmPayment(@Tenant() scope: TenantScope, @Param('id', ParseObjectIdPipe) id: string): Promise<PaymentResponse> {
    return this.payments.confirm(scope, id);
  }

  @Access({ ...PAYMENTS_ACCESS, stepUp: true, roles: ['manager', 'admin'], verifiedEmail: true })
  @Post(':id/refund')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Refund a payment (manager or admin)',
    description:
      'Refunds `amount` (omitted: everything not yet refunded) of a `succeeded` or `partially_refunded` payment; it becomes ' +
      '`refunded` once nothing is left, else `partially_refunded`. More than what is left is 400 (also when concurrent refunds ' +
      'used it up); a payment in another status, a fully refunded one included, is 409.' +
      IDEMPOTENCY_NOTE,
  })
  @ApiOkResponse({ type: PaymentResponse, description: 'The payment after the refund' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 422, 500, 503)
  refundPayment(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: RefundPaymentDto,
    @Idempotency() idempotency: IdempotentRequest | null,
  ): Promise<PaymentResponse> {
    return this.payments.refund(scope, id, dto, idempotency);
  }
}
