import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { CustomersModule } from '../customers/customers.module';
import { PaymentMethodLookup } from '../customers/customers.ports';
import { Card, CardSchema } from './card.schema';
import { CardsController } from './cards.controller';
import { CardsListener } from './cards.listener';
import { CardsRepository } from './cards.repository';
import { CardsService } from './cards.service';
import { CardsPlatformListener } from './cards.platform-listener';

/**
 * Test-mode cards saved for a customer. Invariants: a card's number and CVC are never stored (only
 * its brand, funding, country, last four digits, expiry and a fingerprint, an HMAC keyed per
 * account); only the published test numbers are accepted; every card belongs to a customer of its
 * own platform project (a card saved after its customer's delete removes itself), and a customer's
 * first card becomes its default through the customers module's lease, so concurrent first cards
 * leave exactly one default. It answers the customers module's `PaymentMethodLookup` (whether a card
 * is one of a customer's), which customers declares and resolves without importing this module.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: Card.name, schema: CardSchema }]), CustomersModule],
  controllers: [CardsController],
  providers: [
    CardsRepository,
    CardsService,
    CardsListener,
    CardsPlatformListener,
    { provide: PaymentMethodLookup, useExisting: CardsService },
  ],
  exports: [CardsService, PaymentMethodLookup],
})
export class CardsModule {}
