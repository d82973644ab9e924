import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
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
  providers: [PaymentsService, PaymentsSummaryService, PaymentKeys, PaymentKeysRepository, PaymentsPlatformListener, PaymentsRepository, RefundsRepository],
})
export class PaymentsModule {}
