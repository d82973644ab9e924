import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { isObjectIdOrHexString, Types, type Connection } from 'mongoose';

/**
 * Reads one record of any collection by id, as stored: for the audit log's sweep, which settles an
 * action a stopped process left by the state of its record (there, gone, with these fields).
 */
@Injectable()
export class RecordProbe {
  constructor(@InjectConnection() private readonly connection: Connection) {}

  /** By the id as an ObjectId or as the string itself: a 24-hex id may be stored either way (a refund's is a string). */
  find(collection: string, id: string): Promise<Record<string, unknown> | null> {
    const forms: unknown[] = isObjectIdOrHexString(id) ? [new Types.ObjectId(id), id] : [id];
    return this.connection.collection(collection).findOne({ _id: { $in: forms as Types.ObjectId[] } });
  }
}
