import type { Types } from 'mongoose';
import type { Records } from '../database/records';
import { OUTBOX, OUTBOX_AT, OUTBOX_FIELDS, OUTBOX_RUN } from '../tenancy/recorded-changes';

/** A record with its outbox read (the fields every other read leaves out). */
export type RecordWithOutbox<T> = T & { _id: Types.ObjectId; projectId: Types.ObjectId; [OUTBOX]?: string; [OUTBOX_RUN]?: string; [OUTBOX_AT]?: Date };

const WITH_OUTBOX = { include: [...OUTBOX_FIELDS] };

/**
 * The outbox side of one kind of tenant record (customers, payments...), for the relay. Reads by id
 * go by `_id` alone, the one filter FerretDB's SQLite backend narrows in SQL (ids are unique across
 * projects), and the project each record was written in is checked on what comes back, so nothing
 * of another tenant is relayed as this one's. Nothing here writes a record.
 */
export class OutboxRecords<T> {
  constructor(private readonly records: Records<T>) {}

  get collectionName(): string {
    return this.records.collectionName;
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

  /** Records of every project whose outbox this run wrote at or after `since`: what a stopped run may have left. */
  writtenBy(run: string, since: Date): Promise<RecordWithOutbox<T>[]> {
    return this.records.find({ [OUTBOX_RUN]: run, [OUTBOX_AT]: { $gte: since } }, WITH_OUTBOX) as Promise<RecordWithOutbox<T>[]>;
  }
}
