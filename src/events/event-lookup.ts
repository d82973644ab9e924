import { Injectable } from '@nestjs/common';
import type { TenantScope } from '../tenancy/tenant-scope';
import { EventsRepository } from './events.repository';

/** The port other modules ask whether a project has an event: its record stays this module's. */
@Injectable()
export class EventLookup {
  constructor(private readonly events: EventsRepository) {}

  /** Whether the project lists this event; another project's is as a missing one. */
  async exists(scope: TenantScope, id: string): Promise<boolean> {
    return (await this.events.findById(scope, id)) !== null;
  }
}
