import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { fieldEncryptionProviders } from '../settings/field-encryption.provider';
import { SettingsModule } from '../settings/settings.module';
import { Customer, CustomerSchema } from './customer.schema';
import { CustomersController } from './customers.controller';
import { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';
import { CustomersPlatformListener } from './customers.platform-listener';
import { SocialNumberReencryption } from './social-number-reencryption';

/**
 * Customers of a platform project, and the re-encryption of their social numbers. Invariants: the
 * social number is stored only encrypted, bound to its customer's id and the field's name, and
 * never leaves in an answer, an event or a log; `defaultMethod` is null or one of the customer's
 * own cards, and every write of it runs under the customer's lease, taken only once the customer is
 * found in the caller's project; a customer's delete removes its cards first, so no card outlives
 * its customer. Whether a card is the customer's it asks through `PaymentMethodLookup`
 * (customers.ports.ts), which the cards module provides.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: Customer.name, schema: CustomerSchema }]), SettingsModule],
  controllers: [CustomersController],
  providers: [
    CustomersRepository,
    CustomersService,
    CustomersPlatformListener,
    SocialNumberReencryption,
    ...fieldEncryptionProviders,
  ],
  exports: [CustomersService, SocialNumberReencryption],
})
export class CustomersModule {}
