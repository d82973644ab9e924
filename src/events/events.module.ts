import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { StoredEvent, StoredEventSchema } from './event.schema';
import { EventRelay } from './event-relay';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { RelayRun, RelayRunSchema } from './relay-run.schema';
import { RelayRunsRepository } from './relay-runs.repository';

/**
 * Events: recorded by every data module's repository through the relay (global, so each area's
 * repository can take it without importing this module), listed by `GET /v1/events`.
 */
@Global()
@Module({
  imports: [MongooseModule.forFeature([
      { name: StoredEvent.name, schema: StoredEventSchema },
      { name: RelayRun.name, schema: RelayRunSchema },
    ]),],
  controllers: [EventsController],
  providers: [EventsRepository, RelayRunsRepository, EventsService, EventRelay],
  exports: [EventRelay],
})
export class EventsModule {}
