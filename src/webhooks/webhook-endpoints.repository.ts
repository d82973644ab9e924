import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyKeys, Model, Types } from 'mongoose';
import { olderThan, type FinanceListQuery } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { WebhookEndpoint } from './webhook-endpoint.schema';

/** What the dispatcher reads of an endpoint to send it a delivery. */
export type EndpointForDelivery = Pick<WebhookEndpoint, '_id' | 'projectId' | 'url' | 'status' | 'secrets' | 'failingSince'>;

/** The webhook endpoints collection: the only code that reads or writes it. */
@Injectable()
export class WebhookEndpointsRepository {
  private readonly records: TenantRecords<WebhookEndpoint>;
  /**
   * By project id without a request: the fan-out of an event and the dispatcher, which act for the
   * project a recorded event or delivery names, always filtering by it.
   */
  private readonly byProject: Records<WebhookEndpoint>;

  constructor(@InjectModel(WebhookEndpoint.name) model: Model<WebhookEndpoint>) {
    this.records = new TenantRecords(model);
    this.byProject = new Records(model);
  }

  insert(scope: TenantScope, fields: AnyKeys<WebhookEndpoint>): Promise<WebhookEndpoint> {
    return this.records.insert(scope, fields);
  }

  /** Newest first, `limit + 1` rows after the cursor. */
  page(scope: TenantScope, query: FinanceListQuery): Promise<WebhookEndpoint[]> {
    return this.records.find(scope, olderThan(query.startingAfter), { sort: { _id: -1 }, limit: query.limit + 1 });
  }

  findById(scope: TenantScope, id: string): Promise<WebhookEndpoint | null> {
    return this.records.findById(scope, id);
  }

  count(scope: TenantScope): Promise<number> {
    return this.records.count(scope);
  }

  /** Sets the fields; the endpoint after, or null when the project has none with this id. */
  update(scope: TenantScope, id: string, update: { $set?: Record<string, unknown>; $unset?: Record<string, 1> }): Promise<WebhookEndpoint | null> {
    const _id = toObjectId(id);
    return _id ? this.records.updateAndGet(scope, { _id }, update) : Promise.resolve(null);
  }

  deleteById(scope: TenantScope, id: string): Promise<boolean> {
    const _id = toObjectId(id);
    return _id ? this.records.deleteOne(scope, { _id }) : Promise.resolve(false);
  }

  holdsAny(scope: TenantScope): Promise<boolean> {
    return this.records.exists(scope);
  }

  /** The project's enabled endpoints, with what sending to them needs, for the fan-out of its events. */
  enabledOf(projectId: Types.ObjectId): Promise<(EndpointForDelivery & Pick<WebhookEndpoint, 'enabledEvents'>)[]> {
    return this.byProject.find({ projectId, status: 'enabled' }, { fields: ['enabledEvents', 'url', 'status', 'secrets', 'failingSince', 'projectId'] });
  }

  forDelivery(projectId: Types.ObjectId, id: Types.ObjectId): Promise<EndpointForDelivery | null> {
    return this.byProject.findOne({ _id: id, projectId }, { fields: ['url', 'status', 'secrets', 'failingSince', 'projectId'] });
  }

  /** A delivery succeeded: the endpoint is not failing any more. */
  async markSucceeding(projectId: Types.ObjectId, id: Types.ObjectId): Promise<void> {
    await this.byProject.updateOne({ _id: id, projectId, failingSince: { $ne: null } }, { $set: { failingSince: null } }, { keepTimestamps: true });
  }

  /** A delivery failed: the endpoint is failing since `at`, unless it already was. */
  async markFailing(projectId: Types.ObjectId, id: Types.ObjectId, at: Date): Promise<void> {
    await this.byProject.updateOne({ _id: id, projectId, failingSince: null }, { $set: { failingSince: at } }, { keepTimestamps: true });
  }

  async disable(projectId: Types.ObjectId, id: Types.ObjectId, reason: string): Promise<void> {
    await this.byProject.updateOne({ _id: id, projectId }, { $set: { status: 'disabled', disabledReason: reason } });
  }
}
