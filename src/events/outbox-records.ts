import type { Model, Types } from 'mongoose';
import { Records } from '../database/records';
import { OUTBOX, OUTBOX_FLAG, type PendingEvent } from '../tenancy/recorded-changes';

/** A record with its outbox read (the fields every other read leaves out). */
export type RecordWithOutbox<T> = T & { _id: Types.ObjectId; projectId: Types.ObjectId; [OUTBOX]?: PendingEvent[]; [OUTBOX_FLAG]?: boolean };

const WITH_OUTBOX = { include: [OUTBOX, OUTBOX_FLAG] };

/**
 * The outbox side of one kind of tenant record (customers, payments...): the relay reads a record's
 * pending events and clears them once they are in the events collection. Always by the record's own
 * `_id` and project, so it reads and clears nothing of another tenant.
 */
export class OutboxRecords<T> {
  private readonly records: Records<T>;

  constructor(model: Model<T>) {
    this.records = new Records(model);
  }

  get collection(): string {
    return this.records.model.collection.collectionName;
  }

  /**
   * By `_id` alone, the one filter FerretDB's SQLite backend narrows in SQL (ids are unique across
   * projects); the project is then checked here, so another tenant's record still reads as none.
   */
  async withOutbox(projectId: Types.ObjectId, _id: Types.ObjectId): Promise<RecordWithOutbox<T> | null> {
    const record = await this.records.findOne<RecordWithOutbox<T>>({ _id }, WITH_OUTBOX);
    return record && projectId.equals(record.projectId) ? record : null;
  }

  exists(projectId: Types.ObjectId, _id: Types.ObjectId): Promise<boolean> {
    return this.records.exists({ _id, projectId });
  }

  /** Records of every project whose outbox was written to and not yet emptied. */
  flagged(limit: number): Promise<RecordWithOutbox<T>[]> {
    return this.records.find({ [OUTBOX_FLAG]: true }, { ...WITH_OUTBOX, limit, sort: { _id: 1 } }) as Promise<RecordWithOutbox<T>[]>;
  }

  /**
   * Takes the relayed events out of the outbox. When they are all it holds, the outbox and its flag
   * go in one guarded write; when another change added one meanwhile, only these are pulled and the
   * flag stays for the sweep. Bookkeeping: `updatedAt` stays the change's.
   */
  async clear(projectId: Types.ObjectId, _id: Types.ObjectId, relayed: readonly string[]): Promise<void> {
    const holdsOnlyThese =
      relayed.length > 0
        ? { [OUTBOX]: { $size: relayed.length }, [`${OUTBOX}.id`]: { $all: relayed } }
        : { $or: [{ [OUTBOX]: { $size: 0 } }, { [OUTBOX]: { $exists: false } }] };
    const emptied = await this.records.updateOne({ _id, projectId, ...holdsOnlyThese }, { $unset: { [OUTBOX]: 1, [OUTBOX_FLAG]: 1 } }, { keepTimestamps: true });
    if (emptied.matched > 0 || relayed.length === 0) return;
    await this.records.updateOne({ _id, projectId }, { $pull: { [OUTBOX]: { id: { $in: relayed } } } }, { keepTimestamps: true });
  }
}
