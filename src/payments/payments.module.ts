import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { CardsModule } from '../cards/cards.module';
import { CustomersModule } from '../customers/customers.module';
import { PaymentKey, PaymentKeySchema } from './payment-key.schema';
import { PaymentKeys } from './payment-keys';
import { PaymentLock, PaymentLockSchema } from './payment-lock.schema';
import { PaymentLocks } from './payment-locks';
import { Payment, PaymentSchema } from './payment.schema';
import { PaymentsController } from './payments.controller';
import { PaymentsService } from './payments.service';
import { PaymentsPlatformListener } from './payments.platform-listener';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: Payment.name, schema: PaymentSchema },
      { name: PaymentLock.name, schema: PaymentLockSchema },
      { name: PaymentKey.name, schema: PaymentKeySchema },
    ]),
    CustomersModule,
    CardsModule,
  ],
  controllers: [PaymentsController],
  providers: [PaymentsService, PaymentLocks, PaymentKeys, PaymentsPlatformListener],
})
export class PaymentsModule {}
