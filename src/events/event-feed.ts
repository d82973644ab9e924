import { Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import type { PublishedEvent } from './event-body';
import { EventRelay, type EventSubscriber } from './event-relay';
import { EventsRepository } from './events.repository';

/** Events `EventFeed.withIds` reads at once: one `$in` on `_id`, an index lookup per id. */
export const FEED_IDS_AT_ONCE = 500;

/**
 * The change stream as a follower reads it (the search index): the events every instance listed,
 * in id order from a cursor, and this instance's own as it publishes them. A follower keeps its own
 * cursor and applies each event idempotently: an event can come both ways, and one listed late (by
 * the events sweep) can have an id below a cursor already past it.
 */
@Injectable()
export class EventFeed {
  constructor(
    private readonly events: EventsRepository,
    private readonly relay: EventRelay,
  ) {}

  /**
   * The id and type of the listed events of every project after `cursor` (an event id; null: from
   * the oldest kept), in id order: a follower that read an event before need not read it whole again.
   */
  headsAfter(cursor: string | null, limit: number): Promise<Array<{ id: string; type: string }>> {
    return this.events.listedHeadsAfter(cursor, limit);
  }

  /** The listed events with these ids (at most `FEED_IDS_AT_ONCE`), in id order; one no longer listed is left out. */
  withIds(ids: readonly string[]): Promise<PublishedEvent[]> {
    if (ids.length > FEED_IDS_AT_ONCE) throw new RangeError(`At most ${FEED_IDS_AT_ONCE} events at once`);
    return this.events.listedWithIds(ids);
  }

  /** Told of this instance's events as they are published (before they are listed); must never throw. */
  follow(subscriber: EventSubscriber): void {
    this.relay.subscribe(subscriber);
  }
}

/** The lowest event id made at `time`: a cursor that reads again every event made since. */
export function eventCursorAt(time: Date): string {
  const seconds = Math.max(0, Math.floor(time.getTime() / 1000));
  return `evt_${Types.ObjectId.createFromTime(seconds).toHexString().slice(0, 8)}${'0'.repeat(16)}`;
}

/** When an event id was made (to the second). */
export function eventIdTime(id: string): Date | null {
  const hex = /^evt_([0-9a-f]{8})[0-9a-f]{16}$/.exec(id)?.[1];
  return hex ? new Date(parseInt(hex, 16) * 1000) : null;
}
