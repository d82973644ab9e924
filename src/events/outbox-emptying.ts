import type { Types } from 'mongoose';
import type { Records } from '../database/records';
import { OUTBOX } from '../tenancy/recorded-changes';

/** One record whose outbox's events are recorded: its id, its tenant and the outbox's first event id (the version it was written at). */
export interface CopiedOutbox {
  readonly _id: Types.ObjectId;
  readonly projectId: Types.ObjectId;
  readonly version: string;
}

/** How many records one emptying command names at most. */
const BATCH = 500;

/**
 * Outboxes whose events are recorded, emptied off the request: the writes published in a second
 * share one command per collection, so a recorded write costs the request no more commands than the
 * change and its events. Each record is matched by the outbox's own event id (event ids are unique,
 * so no record matches another's): a change written meanwhile, which replaces the outbox, keeps its
 * own, and a write that only moved the version (a channel's list of projects) does not. An
 * outbox a stopped process did not get to empty is emptied by the sweep, which reads the records
 * that still hold one.
 */
export class OutboxEmptying {
  private readonly due = new Map<Records<unknown>, CopiedOutbox[]>();
  /** The versions queued: their events are in the events collection, so nobody need ask it. */
  private readonly versions = new Set<string>();

  add(records: Records<unknown>, copied: CopiedOutbox): void {
    const list = this.due.get(records);
    if (list) list.push(copied);
    else this.due.set(records, [copied]);
    this.versions.add(copied.version);
  }

  /** Whether the outbox at this version is queued: its events are recorded. */
  published(version: string): boolean {
    return this.versions.has(version);
  }

  /** Empties what is due; what fails stays due for the next run. */
  async flush(): Promise<void> {
    const taken = [...this.due];
    this.due.clear();
    this.versions.clear();
    for (const [records, list] of taken) {
      for (let start = 0; start < list.length; start += BATCH) {
        const batch = list.slice(start, start + BATCH);
        try {
          await records.updateManyStored(
            {
              _id: { $in: batch.map((copied) => copied._id) },
              projectId: { $in: [...new Set(batch.map((copied) => copied.projectId))] },
              [`${OUTBOX}.id`]: { $in: batch.map((copied) => copied.version) },
            },
            { $unset: { [OUTBOX]: 1 } },
          );
        } catch (error) {
          for (const copied of list.slice(start)) this.add(records, copied);
          throw error;
        }
      }
    }
  }
}
