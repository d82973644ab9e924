import type { Types } from 'mongoose';
import type { Records } from '../database/records';
import { LEGACY_OUTBOX_FIELDS, OUTBOX, OUTBOX_FIELDS } from '../tenancy/recorded-changes';
import { writtenByRun, type OutboxFields } from './stored-outbox';

/** A record with its outbox read (the fields every other read leaves out). */
export type RecordWithOutbox<T> = T & OutboxFields & { _id: Types.ObjectId; projectId: Types.ObjectId };

const WITH_OUTBOX = { include: [...OUTBOX_FIELDS] };
const [, LEGACY_RUN, LEGACY_AT] = LEGACY_OUTBOX_FIELDS;

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

  /**
   * Records of every project whose outbox this run wrote at or after `since`: what a stopped run may
   * have left. Found by `updatedAt`, which the write set after the outbox's time, on the same clock.
   */
  writtenBy(run: string, since: Date): Promise<RecordWithOutbox<T>[]> {
    return this.records.find({ updatedAt: { $gte: since }, [OUTBOX]: writtenByRun(run) }, WITH_OUTBOX) as Promise<RecordWithOutbox<T>[]>;
  }

  /** As `writtenBy`, for a run of a build before the one-field outbox (its records hold the earlier form). */
  writtenByLegacyRun(run: string, since: Date): Promise<RecordWithOutbox<T>[]> {
    return this.records.find({ [LEGACY_RUN]: run, [LEGACY_AT]: { $gte: since } }, WITH_OUTBOX) as Promise<RecordWithOutbox<T>[]>;
  }
}
