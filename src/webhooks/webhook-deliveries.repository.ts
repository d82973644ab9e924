import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { olderThan, type FinanceListQuery } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { WebhookDelivery } from './webhook-delivery.schema';

export interface NewDelivery {
  projectId: Types.ObjectId;
  endpointId: Types.ObjectId;
  eventId: string;
  eventType: string;
  payload: string;
  firstAttemptAt: Date;
}

/** What an attempt changes of its delivery. */
export type AttemptRecord = Pick<WebhookDelivery, 'status' | 'attempt' | 'nextAttemptAt' | 'responseStatus' | 'responseBody' | 'durationMs' | 'error'>;

/** The webhook deliveries collection: the only code that reads or writes it. */
@Injectable()
export class WebhookDeliveriesRepository {
  private readonly records: TenantRecords<WebhookDelivery>;
  /** By project id without a request: the fan-out and the dispatcher, always filtering by the project they act for. */
  private readonly byProject: Records<WebhookDelivery>;

  constructor(@InjectModel(WebhookDelivery.name) model: Model<WebhookDelivery>) {
    this.records = new TenantRecords(model);
    this.byProject = new Records(model);
  }

  /** One delivery of the event to the endpoint: a second fan-out of the same event writes nothing. */
  async insertOnce(delivery: NewDelivery): Promise<WebhookDelivery | null> {
    try {
      return await this.byProject.insert({ ...delivery, status: 'pending', attempt: 0, nextAttemptAt: delivery.firstAttemptAt });
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  /**
   * The fan-out's deliveries in one command, as stored (the schema's defaults written out); false
   * when any was there already (a relay that ran twice), and the caller then sends none itself.
   */
  async insertFresh(deliveries: readonly (NewDelivery & { _id: Types.ObjectId; nextAttemptAt: Date })[]): Promise<boolean> {
    const now = new Date();
    const { onlyDuplicates, inserted } = await this.byProject.insertStored(
      deliveries.map((delivery) => ({
        ...delivery,
        status: 'pending',
        attempt: 0,
        responseStatus: null,
        responseBody: null,
        durationMs: null,
        error: null,
        createdAt: now,
        updatedAt: now,
      })),
    );
    return onlyDuplicates && inserted === deliveries.length;
  }

  /** An endpoint's deliveries, newest first, `limit + 1` rows after the cursor. */
  pageOfEndpoint(scope: TenantScope, endpointId: string, query: FinanceListQuery): Promise<WebhookDelivery[]> {
    const endpoint = toObjectId(endpointId);
    if (!endpoint) return Promise.resolve([]);
    return this.records.find(scope, { endpointId: endpoint, ...olderThan(query.startingAfter) }, { sort: { _id: -1 }, limit: query.limit + 1 });
  }

  /** Makes the endpoint's delivery due now (a retry asked for); the delivery after, or null. */
  retryNow(scope: TenantScope, endpointId: string, id: string, now: Date): Promise<WebhookDelivery | null> {
    const endpoint = toObjectId(endpointId);
    const _id = toObjectId(id);
    if (!endpoint || !_id) return Promise.resolve(null);
    return this.records.updateAndGet(scope, { _id, endpointId: endpoint }, { $set: { status: 'pending', nextAttemptAt: now } });
  }

  /** Deliveries of every project whose attempt is due, soonest first. */
  due(now: Date, limit: number): Promise<WebhookDelivery[]> {
    return this.byProject.find({ status: 'pending', nextAttemptAt: { $lte: now } }, { sort: { nextAttemptAt: 1 }, limit, fields: ['projectId', 'nextAttemptAt'] });
  }

  /** The delivery as an attempt needs it (its payload included). */
  forAttempt(projectId: Types.ObjectId, id: Types.ObjectId): Promise<WebhookDelivery | null> {
    return this.byProject.findOne({ _id: id, projectId });
  }

  async recordAttempt(projectId: Types.ObjectId, id: Types.ObjectId, attempt: AttemptRecord): Promise<void> {
    await this.byProject.updateOne({ _id: id, projectId }, { $set: attempt });
  }

  async deleteOfEndpoint(scope: TenantScope, endpointId: Types.ObjectId): Promise<void> {
    await this.records.deleteMany(scope, { endpointId });
  }
}
