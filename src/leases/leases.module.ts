import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Lease, LeaseSchema } from './lease.schema';
import { LeasesRepository } from './leases.repository';
import { Leases } from './leases.service';

/**
 * Short leases across every instance: `Leases` serialises changes of one thing (a payment, a
 * customer's default card, a channel's project tree, an asset) by inserting a document whose `_id`
 * is the lease's key. The unique `_id` is what MongoDB and FerretDB both apply atomically, so at
 * most one holder has a key at a time; a lease ends when released or when it expires, so a crashed
 * holder's work is taken over. A fenced lease (`tryWithFencedLease`) also numbers its holders: its
 * document stays, and each take-over, claimed by the insert of `<key>#<n>`, gets the next token, so
 * writes guarded on the token refuse a holder that was taken over.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: Lease.name, schema: LeaseSchema }])],
  providers: [Leases, LeasesRepository],
  exports: [Leases],
})
export class LeasesModule {}
