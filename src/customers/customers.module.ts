import { Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { MongooseModule } from '@nestjs/mongoose';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { LeasesModule } from '../leases/leases.module';
import { financeConfig } from '../config/finance.config';
import { Customer, CustomerSchema } from './customer.schema';
import { CustomersController } from './customers.controller';
import { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';
import { CustomersPlatformListener } from './customers.platform-listener';
import { SocialNumberReencryption } from './social-number-reencryption';

@Module({
  imports: [MongooseModule.forFeature([{ name: Customer.name, schema: CustomerSchema }]), LeasesModule],
  controllers: [CustomersController],
  providers: [
    CustomersRepository,
    CustomersService,
    CustomersPlatformListener,
    SocialNumberReencryption,
    {
      provide: FieldEncryption,
      inject: [financeConfig.KEY],
      useFactory: (config: ConfigType<typeof financeConfig>) => new FieldEncryption(config.fieldEncryptionKeys),
    },
  ],
  exports: [CustomersService, SocialNumberReencryption],
})
export class CustomersModule {}
