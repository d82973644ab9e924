import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Lease, LeaseSchema } from './lease.schema';
import { LeasesRepository } from './leases.repository';
import { Leases } from './leases.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: Lease.name, schema: LeaseSchema }])],
  providers: [Leases, LeasesRepository],
  exports: [Leases],
})
export class LeasesModule {}
