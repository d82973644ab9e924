import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { CustomersModule } from '../customers/customers.module';
import { Card, CardSchema } from './card.schema';
import { CardsController } from './cards.controller';
import { CardsListener } from './cards.listener';
import { CardsRepository } from './cards.repository';
import { CardsService } from './cards.service';
import { CardsPlatformListener } from './cards.platform-listener';

@Module({
  imports: [MongooseModule.forFeature([{ name: Card.name, schema: CardSchema }]), CustomersModule],
  controllers: [CardsController],
  providers: [CardsRepository, CardsService, CardsListener, CardsPlatformListener],
  exports: [CardsService],
})
export class CardsModule {}
