import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { StoredEvent, StoredEventSchema } from './event.schema';
import { EventRelay } from './event-relay';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { LEGACY_RELAY_RUNS, RelayRun, RelayRunSchema } from './relay-run.schema';
import { LEGACY_RELAY_RUN, RelayRunsRepository } from './relay-runs.repository';

/**
 * Events: recorded by every data module's repository through the relay (global, so each area's
 * repository can take it without importing this module), listed by `GET /v1/events`.
 */
@Global()
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: StoredEvent.name, schema: StoredEventSchema },
      { name: RelayRun.name, schema: RelayRunSchema },
      { name: LEGACY_RELAY_RUN, schema: RelayRunSchema, collection: LEGACY_RELAY_RUNS },
    ]),
  ],
  controllers: [EventsController],
  providers: [EventsRepository, RelayRunsRepository, EventsService, EventRelay],
  exports: [EventRelay],
})
export class EventsModule {}
