import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { SoftDeletableRecords } from '../tenancy/soft-deletable-records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { EventRelay } from '../events/event-relay';
import { Client } from './client.schema';
import { toClientResponse } from './clients.mapper';

export const CLIENT_NOT_FOUND = 'Client not found';

/** The clients of a platform project: the only code that reads or writes them. */
@Injectable()
export class ClientsRepository extends SoftDeletableRecords<Client> {
  constructor(@InjectModel(Client.name) model: Model<Client>, relay: EventRelay) {
    super(new TenantRecords(model, relay.recorder(new Records(model), toClientResponse)), CLIENT_NOT_FOUND, 'client');
  }

  /** Whether the client exists in the scope, live or soft-deleted. */
  exists(scope: TenantScope, id: string): Promise<boolean> {
    return this.records.existsById(scope, id);
  }

  /** The live client, or null. */
  findLive(scope: TenantScope, id: string): Promise<Client | null> {
    return this.records.findById(scope, id, { deletedAt: null });
  }

  /** Marks the client as being hard-deleted (or clears the mark with null); false when there is no such client. */
  async markDeleting(scope: TenantScope, id: string, at: Date | null): Promise<boolean> {
    const _id = toObjectId(id);
    return _id !== null && (await this.records.updateOne(scope, { _id }, { $set: { deletingAt: at } })).matched > 0;
  }
}
