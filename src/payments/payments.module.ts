import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { RefundSettlements } from '../audit/audit.ports';
import { CardsModule } from '../cards/cards.module';
import { LeasesModule } from '../leases/leases.module';
import { CustomersModule } from '../customers/customers.module';
import { PaymentKey, PaymentKeySchema } from './payment-key.schema';
import { PaymentKeys } from './payment-keys';
import { Payment, PaymentSchema } from './payment.schema';
import { PaymentsController } from './payments.controller';
import { PaymentsService } from './payments.service';
import { PaymentsSummaryService } from './payments-summary.service';
import { PaymentsPlatformListener } from './payments.platform-listener';
import { Refund, RefundSchema } from './refund.schema';
import { RefundsRepository } from './refunds.repository';
import { PaymentKeysRepository } from './payment-keys.repository';
import { PaymentsRepository } from './payments.repository';

/**
 * Payments, their refunds and payment keys, and the daily summary. Invariants: amounts are exact
 * integers in minor units; a payment is charged once (confirmations under the payment's lease, the
 * update guarded on a confirmable status); a refund is in the payment's totals exactly when the
 * payment lists it in `refundIds`, so money moves once per refund whatever becomes of the request,
 * and refunds of one payment run one at a time so they never exceed it; under an `Idempotency-Key`
 * a payment and a refund are named by the key, so a retry finds them instead of making new ones
 * (PaymentsService). It tells the audit log's sweep where a refund stands (`RefundSettlements`, a
 * port the audit module declares and resolves without importing this one).
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: Payment.name, schema: PaymentSchema },
      { name: PaymentKey.name, schema: PaymentKeySchema },
      { name: Refund.name, schema: RefundSchema },
    ]),
    CustomersModule,
    CardsModule,
    LeasesModule,
  ],
  controllers: [PaymentsController],
  providers: [
    PaymentsService,
    PaymentsSummaryService,
    PaymentKeys,
    PaymentKeysRepository,
    PaymentsPlatformListener,
    PaymentsRepository,
    RefundsRepository,
    { provide: RefundSettlements, useExisting: PaymentsService },
  ],
  exports: [RefundSettlements, PaymentsService],
})
export class PaymentsModule {}
