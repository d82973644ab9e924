import { Injectable } from '@nestjs/common';
import { EventsRepository } from './events.repository';

/**
 * For `npm run migrate`: names the object of every event recorded before events named it, so a
 * resource's events (`GET /v1/events?object=`, a payment's timeline) include those recorded earlier.
 */
@Injectable()
export class EventObjectsMigration {
  constructor(private readonly events: EventsRepository) {}

  async run(): Promise<string> {
    const named = await this.events.nameObjects();
    return named > 0
      ? `Events given the id of the object they are about: ${named}.`
      : 'Every event already names the object it is about.';
  }
}
