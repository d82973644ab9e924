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

  find(collection: string, id: string): Promise<Record<string, unknown> | null> {
    const _id = isObjectIdOrHexString(id) ? new Types.ObjectId(id) : id;
    return this.connection.collection(collection).findOne({ _id: _id as Types.ObjectId });
  }
}
