import { Injectable } from '@nestjs/common';
import { objectIdOf } from '../events/event-body';
import { LegacyDataRepository } from './legacy-data.repository';

/**
 * Names the object of every event recorded before events named it (`objectId`, read from its body),
 * so a resource's events (`GET /v1/events?object=`, a payment's timeline) include those recorded
 * earlier. A run after another changes nothing.
 */
@Injectable()
export class EventObjectsMigration {
  constructor(private readonly legacy: LegacyDataRepository) {}

  async run(): Promise<string> {
    let named = 0;
    for await (const event of this.legacy.eventsWithoutObject()) {
      const objectId = objectIdOf(event.body);
      if (objectId !== undefined && (await this.legacy.nameEventObject(event._id, objectId))) named += 1;
    }
    return named > 0
      ? `Events given the id of the object they are about: ${named}.`
      : 'Every event already names the object it is about.';
  }
}
