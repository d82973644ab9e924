import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ClockModule } from '../common/clock/clock';
import { IdempotencyRecord, IdempotencyRecordSchema } from './idempotency-record.schema';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotencyStore } from './idempotency.store';
import { IdempotencyRecordsRepository } from './idempotency-records.repository';

/**
 * `Idempotency-Key`: the store, and `IdempotencyGuard`, bound to every POST route by
 * `@Idempotent()`; each controller's module builds it, hence global. The answers settle the records
 * through a response hook (`settleIdempotentResponses`, installed by `createApp`). Invariant: per
 * platform project, caller and route, one key runs its request once: the unique index on the key's
 * record decides among concurrent requests, a retry replays the stored answer, and another request
 * under the key is 422.
 */
@Global()
@Module({
  imports: [
    MongooseModule.forFeature([{ name: IdempotencyRecord.name, schema: IdempotencyRecordSchema }]),
    ClockModule,
  ],
  providers: [IdempotencyStore, IdempotencyGuard, IdempotencyRecordsRepository],
  exports: [IdempotencyStore, IdempotencyGuard],
})
export class IdempotencyModule {}
