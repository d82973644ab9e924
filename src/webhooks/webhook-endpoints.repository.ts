import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { AnyKeys, Model, Types } from 'mongoose';
import { olderThan, type FinanceListQuery } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { WebhookEndpoint } from './webhook-endpoint.schema';
import { growingLru } from '../common/cache/growing-lru';

/** What the dispatcher reads of an endpoint to send it a delivery. */
export type EndpointForDelivery = Pick<
  WebhookEndpoint,
  '_id' | 'projectId' | 'url' | 'status' | 'secrets' | 'failingSince'
>;

type EnabledEndpoint = EndpointForDelivery & Pick<WebhookEndpoint, 'enabledEvents'>;

/**
 * How long a project's enabled endpoints, as the fan-out read them, are used without reading them
 * again. A change on this instance forgets them at once; one made on another instance reaches this
 * one's fan-out within this time (docs/events-and-webhooks.md, "Webhook endpoints").
 */
export const ENABLED_ENDPOINTS_TTL_MS = 1_000;

/** The webhook endpoints collection: the only code that reads or writes it. */
@Injectable()
export class WebhookEndpointsRepository {
  private readonly records: TenantRecords<WebhookEndpoint>;
  /**
   * By project id without a request: the fan-out of an event and the dispatcher, which act for the
   * project a recorded event or delivery names, always filtering by it.
   */
  private readonly byProject: Records<WebhookEndpoint>;

  // The clock read at each lookup, without lru-cache's 1 ms timer (as the token cache in src/access/authentication.ts).
  private readonly enabled = growingLru<string, Promise<EnabledEndpoint[]>>(10_000, {
    ttl: ENABLED_ENDPOINTS_TTL_MS,
    ttlResolution: 0,
  });

  constructor(@InjectModel(WebhookEndpoint.name) model: Model<WebhookEndpoint>) {
    this.records = new TenantRecords(model);
    this.byProject = new Records(model);
  }

  async insert(scope: TenantScope, fields: AnyKeys<WebhookEndpoint>): Promise<WebhookEndpoint> {
    try {
      return await this.records.insert(scope, fields);
    } finally {
      this.enabled.delete(scope.projectId);
    }
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
  update(
    scope: TenantScope,
    id: string,
    update: { $set?: Record<string, unknown>; $unset?: Record<string, 1> },
  ): Promise<WebhookEndpoint | null> {
    const _id = toObjectId(id);
    if (!_id) return Promise.resolve(null);
    return this.records.updateAndGet(scope, { _id }, update).finally(() => this.enabled.delete(scope.projectId));
  }

  deleteById(scope: TenantScope, id: string): Promise<boolean> {
    const _id = toObjectId(id);
    if (!_id) return Promise.resolve(false);
    return this.records.deleteOne(scope, { _id }).finally(() => this.enabled.delete(scope.projectId));
  }

  holdsAny(scope: TenantScope): Promise<boolean> {
    return this.records.exists(scope);
  }

  /**
   * The project's enabled endpoints, with what sending to them needs, for the fan-out of its events:
   * read at most once per `ENABLED_ENDPOINTS_TTL_MS` per project (a read failed is not kept).
   */
  enabledOf(projectId: Types.ObjectId): Promise<EnabledEndpoint[]> {
    const key = String(projectId);
    let endpoints = this.enabled.get(key);
    if (!endpoints) {
      endpoints = this.byProject.find(
        { projectId, status: 'enabled' },
        { fields: ['enabledEvents', 'url', 'status', 'secrets', 'failingSince', 'projectId'] },
      );
      this.enabled.set(key, endpoints);
      endpoints.catch(() => this.enabled.delete(key));
    }
    return endpoints;
  }

  forDelivery(projectId: Types.ObjectId, id: Types.ObjectId): Promise<EndpointForDelivery | null> {
    return this.byProject.findOne(
      { _id: id, projectId },
      { fields: ['url', 'status', 'secrets', 'failingSince', 'projectId'] },
    );
  }

  /** A delivery succeeded: the endpoint is not failing any more. */
  async markSucceeding(projectId: Types.ObjectId, id: Types.ObjectId): Promise<void> {
    await this.byProject.updateOne(
      { _id: id, projectId, failingSince: { $ne: null } },
      { $set: { failingSince: null } },
      { keepTimestamps: true },
    );
  }

  /** A delivery failed: the endpoint is failing since `at`, unless it already was. */
  async markFailing(projectId: Types.ObjectId, id: Types.ObjectId, at: Date): Promise<void> {
    await this.byProject.updateOne(
      { _id: id, projectId, failingSince: null },
      { $set: { failingSince: at } },
      { keepTimestamps: true },
    );
  }

  async disable(projectId: Types.ObjectId, id: Types.ObjectId, reason: string): Promise<void> {
    await this.byProject.updateOne({ _id: id, projectId }, { $set: { status: 'disabled', disabledReason: reason } });
    this.enabled.delete(String(projectId));
  }
}
