import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { fieldEncryptionProviders } from '../config/field-encryption.provider';
import { SettingsModule } from '../settings/settings.module';
import { Customer, CustomerSchema } from './customer.schema';
import { CustomersController } from './customers.controller';
import { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';
import { CustomersPlatformListener } from './customers.platform-listener';
import { SocialNumberReencryption } from './social-number-reencryption';

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
