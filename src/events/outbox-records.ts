import type { Model, Types } from 'mongoose';
import { Records } from '../database/records';
import { OUTBOX, OUTBOX_FLAG, type PendingEvent } from '../tenancy/recorded-changes';

/** A record with its outbox read (the fields every other read leaves out). */
export type RecordWithOutbox<T> = T & { _id: Types.ObjectId; projectId: Types.ObjectId; [OUTBOX]?: PendingEvent[]; [OUTBOX_FLAG]?: boolean };

/** A record whose outbox the relay has moved, and the events it moved. */
export interface Relayed {
  _id: Types.ObjectId;
  projectId: Types.ObjectId;
  eventIds: string[];
}

const WITH_OUTBOX = { include: [OUTBOX, OUTBOX_FLAG] };

/**
 * The outbox side of one kind of tenant record (customers, payments...): the relay reads the pending
 * events of the records just written and clears them once they are in the events collection. Reads
 * go by `_id` alone, the one filter FerretDB's SQLite backend narrows in SQL (ids are unique across
 * projects), and the project each record was written in is checked on what comes back, so nothing of
 * another tenant is relayed as this one's.
 */
export class OutboxRecords<T> {
  private readonly records: Records<T>;

  constructor(model: Model<T>) {
    this.records = new Records(model);
  }

  get collection(): string {
    return this.records.model.collection.collectionName;
  }

  /** The records among `written` (id and project) that still exist in that project, with their outboxes. */
  async withOutbox(written: readonly { _id: Types.ObjectId; projectId: Types.ObjectId }[]): Promise<RecordWithOutbox<T>[]> {
    const projectOf = new Map(written.map((entry) => [String(entry._id), entry.projectId]));
    const records = await this.records.findByIds<RecordWithOutbox<T>>(
      written.map((entry) => entry._id),
      WITH_OUTBOX,
    );
    return records.filter((record) => projectOf.get(String(record._id))?.equals(record.projectId));
  }

  exists(projectId: Types.ObjectId, _id: Types.ObjectId): Promise<boolean> {
    return this.records.exists({ _id, projectId });
  }

  /** Records of every project whose outbox was written to and not yet emptied. */
  flagged(limit: number): Promise<RecordWithOutbox<T>[]> {
    return this.records.find({ [OUTBOX_FLAG]: true }, { ...WITH_OUTBOX, limit, sort: { _id: 1 } }) as Promise<RecordWithOutbox<T>[]>;
  }

  /**
   * Takes the relayed events out of the records' outboxes, in one command: a record whose outbox
   * still holds exactly those loses its outbox and flag. One that another change added an event to
   * meanwhile keeps its flag, and only the relayed events are pulled from it. Bookkeeping: no
   * `updatedAt` change.
   */
  async clear(relayed: readonly Relayed[]): Promise<void> {
    const holdingOnlyThose = (entry: Relayed) =>
      entry.eventIds.length > 0
        ? { [OUTBOX]: { $size: entry.eventIds.length }, [`${OUTBOX}.id`]: { $all: entry.eventIds } }
        : { $or: [{ [OUTBOX]: { $size: 0 } }, { [OUTBOX]: { $exists: false } }] };
    const emptied = await this.records.bulkUpdate(
      relayed.map((entry) => ({ filter: { _id: entry._id, ...holdingOnlyThose(entry) }, update: { $unset: { [OUTBOX]: '', [OUTBOX_FLAG]: '' } } })),
    );
    if (emptied === relayed.length) return;
    // Some outbox grew meanwhile: pull what was relayed from each record that still lists it.
    await this.records.bulkUpdate(
      relayed
        .filter((entry) => entry.eventIds.length > 0)
        .map((entry) => ({ filter: { _id: entry._id, [`${OUTBOX}.id`]: { $in: entry.eventIds } }, update: { $pull: { [OUTBOX]: { id: { $in: entry.eventIds } } } } })),
    );
  }
}
