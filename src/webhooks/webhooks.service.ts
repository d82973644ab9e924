import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Types } from 'mongoose';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { toPage, type FinanceListQuery, type Page } from '../common/paging/finance-list.query';
import { eventsConfig } from '../config/events.config';
import { newEventId } from '../events/event-body';
import { EventLookup } from '../events/event-lookup';
import { EVENT_NOT_FOUND } from '../events/events.service';
import { API_VERSION, RECORDED_EVENT_TYPES, WEBHOOK_TEST_EVENT, type RecordedEventType } from '../events/event-types';
import { apiOfEventType } from '../tenancy/recorded-event-types';
import { auditContextOf, changesOf } from '../audit/audit-draft';
import type { AuditParty } from '../audit/audit-entry.schema';
import { AuditTrail } from '../audit/audit-trail';
import { Leases } from '../leases/leases.service';
import type { TenantScope } from '../tenancy/tenant-scope';
import type { CreateWebhookEndpointDto, RollSecretDto, UpdateWebhookEndpointDto } from './dto/webhook-endpoint.dto';
import type {
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecret,
} from './dto/webhook-endpoint.response';
import { checkWebhookUrl, WebhookUrlRefused } from './transport/destination-guard';
import { newWebhookSecret } from './transport/signature';
import { MAX_ATTEMPTS, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDispatcher } from './webhook-dispatcher';
import type { StoredSecret } from './webhook-endpoint.schema';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { secretBinding } from './webhook-secrets';
import { toDeliveryResponse, toEndpointResponse } from './webhooks.mapper';

export const ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';
export const DELIVERY_NOT_FOUND = 'Webhook delivery not found';
export const DELIVERY_UNDER_WAY = 'An attempt of this delivery is under way: retry it once its outcome is recorded';
export const DELIVERY_PAST_RETENTION =
  "This delivery is past the events' retention: its event is no longer kept, so it cannot be sent again";
export const MAX_ENDPOINTS = 16;
const ENDPOINTS_BUSY = "Another change to this project's webhook endpoints is in progress; retry the request";
const DEFAULT_GRACE_HOURS = 24;

/** The webhook endpoints of a platform project, their secrets, and their deliveries. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly dispatcher: WebhookDispatcher,
    private readonly encryption: FieldEncryption,
    private readonly leases: Leases,
    private readonly trail: AuditTrail,
    private readonly events: EventLookup,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
  ) {}

  /** The count and the insert run under one lease per project: concurrent creates cannot pass the limit together. */
  async create(
    scope: TenantScope,
    dto: CreateWebhookEndpointDto,
    readable: readonly RecordedEventType[] | null,
  ): Promise<WebhookEndpointWithSecret> {
    assertReadable(readable, dto.enabledEvents);
    const url = await this.checkedUrl(dto.url);
    return this.leases.withLease(`webhook-endpoints:${scope.projectId}`, ENDPOINTS_BUSY, async () => {
      if ((await this.endpoints.count(scope)) >= MAX_ENDPOINTS) {
        throw new BadRequestException(`A platform project can have at most ${MAX_ENDPOINTS} webhook endpoints`);
      }
      const _id = new Types.ObjectId();
      const secret = newWebhookSecret();
      const created = await this.trail.record(
        auditContextOf(scope),
        {
          accountId: scope.accountId,
          action: 'webhook_endpoint.created',
          target: endpointParty(String(_id), url),
          projectId: scope.projectId,
        },
        { collection: 'webhook_endpoints', id: String(_id), exists: true },
        () =>
          this.endpoints.insert(scope, {
            _id,
            url,
            description: dto.description ?? null,
            enabledEvents: normaliseEvents(dto.enabledEvents),
            secrets: [this.stored(secret, _id, null)],
          }),
      );
      return { ...toEndpointResponse(created), secret };
    });
  }

  async list(scope: TenantScope, query: FinanceListQuery): Promise<Page<WebhookEndpointResponse>> {
    return toPage(await this.endpoints.page(scope, query), query.limit, toEndpointResponse);
  }

  async get(scope: TenantScope, id: string): Promise<WebhookEndpointResponse> {
    const endpoint = await this.endpoints.findById(scope, id);
    if (!endpoint) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    return toEndpointResponse(endpoint);
  }

  /**
   * Enabling clears the reason the service disabled it for, and its failing streak. A caller held to
   * `readable` changes only an endpoint whose events, after the change, it may read.
   */
  async update(
    scope: TenantScope,
    id: string,
    dto: UpdateWebhookEndpointDto,
    readable: readonly RecordedEventType[] | null,
  ): Promise<WebhookEndpointResponse> {
    const before = await this.endpoints.findById(scope, id);
    if (!before) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    assertReadable(readable, dto.enabledEvents ?? before.enabledEvents);
    const set: Record<string, unknown> = {};
    if (dto.url !== undefined) set.url = await this.checkedUrl(dto.url);
    if (dto.description !== undefined) set.description = dto.description;
    if (dto.enabledEvents !== undefined) set.enabledEvents = normaliseEvents(dto.enabledEvents);
    if (dto.status !== undefined) set.status = dto.status;
    if (dto.status === 'enabled') Object.assign(set, { disabledReason: null, failingSince: null });
    if (Object.keys(set).length === 0) return toEndpointResponse(before);
    const audited = {
      url: set.url,
      description: set.description,
      enabledEvents: set.enabledEvents,
      status: set.status,
    };
    const after = Object.fromEntries(Object.entries(audited).filter(([, value]) => value !== undefined));
    const updated = await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'webhook_endpoint.updated',
        target: endpointParty(id, before.url),
        projectId: scope.projectId,
        changes: changesOf(before as unknown as Record<string, unknown>, after),
      },
      { collection: 'webhook_endpoints', id, fields: after },
      () => this.endpoints.update(scope, id, { $set: set }),
    );
    if (!updated) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    return toEndpointResponse(updated);
  }

  /** The endpoint and its deliveries; pending ones are not sent. */
  async delete(scope: TenantScope, id: string): Promise<void> {
    const endpoint = await this.endpoints.findById(scope, id);
    if (!endpoint) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    const deleted = await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'webhook_endpoint.deleted',
        target: endpointParty(id, endpoint.url),
        projectId: scope.projectId,
      },
      { collection: 'webhook_endpoints', id, exists: false },
      () => this.endpoints.deleteById(scope, id),
    );
    if (!deleted) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    await this.deliveries.deleteOfEndpoint(scope, endpoint._id);
  }

  /** A new secret; the current one keeps signing beside it for `expiresInHours`, older ones stop. */
  async rollSecret(scope: TenantScope, id: string, dto: RollSecretDto): Promise<WebhookEndpointWithSecret> {
    const endpoint = await this.endpoints.findById(scope, id);
    if (!endpoint) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    const hours = dto.expiresInHours ?? DEFAULT_GRACE_HOURS;
    const now = Date.now();
    const [current] = endpoint.secrets;
    const secret = newWebhookSecret();
    const secrets: StoredSecret[] = [this.stored(secret, endpoint._id, null)];
    if (hours > 0) secrets.push({ value: current.value, expiresAt: new Date(now + hours * 3_600_000) });
    const updated = await this.trail.record(
      auditContextOf(scope),
      {
        accountId: scope.accountId,
        action: 'webhook_endpoint.secret_rolled',
        target: endpointParty(id, endpoint.url),
        projectId: scope.projectId,
      },
      { collection: 'webhook_endpoints', id, fields: { secrets } },
      () => this.endpoints.update(scope, id, { $set: { secrets } }),
    );
    if (!updated) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    return { ...toEndpointResponse(updated), secret };
  }

  /** A `webhook.test` event, sent to this endpoint only and not recorded in the event list. */
  async sendTest(scope: TenantScope, id: string): Promise<WebhookDeliveryResponse> {
    const endpoint = await this.endpoints.findById(scope, id);
    if (!endpoint) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    if (endpoint.status !== 'enabled')
      throw new ConflictException('The endpoint is disabled: enable it to send it a test event');
    const eventId = newEventId();
    const body = JSON.stringify({
      id: eventId,
      type: WEBHOOK_TEST_EVENT,
      createdAt: new Date().toISOString(),
      projectId: scope.projectId,
      apiVersion: API_VERSION,
      data: { object: { endpointId: String(endpoint._id), message: 'A test event, sent on request' } },
      request: { id: scope.origin.id, idempotencyKey: scope.origin.idempotencyKey },
    });
    const delivery = await this.dispatcher.schedule(endpoint.projectId, endpoint._id, {
      id: eventId,
      type: WEBHOOK_TEST_EVENT,
      body,
    });
    this.dispatcher.wake();
    return toDeliveryResponse(delivery!);
  }

  /** A page of the endpoint's deliveries, each with every attempt it had. */
  async deliveriesOf(scope: TenantScope, id: string, query: FinanceListQuery): Promise<Page<WebhookDeliveryResponse>> {
    if (!(await this.endpoints.findById(scope, id))) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    return toPage(await this.deliveries.pageOfEndpoint(scope, id, query), query.limit, toDeliveryResponse);
  }

  /** An event's deliveries to every endpoint of the project; another project's event is 404, as a missing one. */
  async deliveriesOfEvent(
    scope: TenantScope,
    eventId: string,
    query: FinanceListQuery,
  ): Promise<Page<WebhookDeliveryResponse>> {
    if (!(await this.events.exists(scope, eventId))) throw new NotFoundException(EVENT_NOT_FOUND);
    return toPage(await this.deliveries.pageOfEvent(scope, eventId, query), query.limit, toDeliveryResponse);
  }

  /**
   * The delivery is due now, whatever its state: one more attempt, and the schedule's retries if any
   * are left. Not while an attempt of it is under way (its outcome comes first), nor past the most
   * attempts a delivery keeps.
   */
  async retry(scope: TenantScope, id: string, deliveryId: string): Promise<WebhookDeliveryResponse> {
    if (!(await this.endpoints.findById(scope, id))) throw new NotFoundException(ENDPOINT_NOT_FOUND);
    const delivery = await this.deliveries.retryNow(scope, id, deliveryId, new Date());
    if (!delivery) {
      const found = await this.deliveries.findOfEndpoint(scope, id, deliveryId);
      if (!found) throw new NotFoundException(DELIVERY_NOT_FOUND);
      if (found.attempt >= MAX_ATTEMPTS)
        throw new ConflictException(`A delivery is attempted at most ${MAX_ATTEMPTS} times; this one was`);
      if (await this.deliveries.payloadDropped(scope, id, deliveryId))
        throw new ConflictException(DELIVERY_PAST_RETENTION);
      throw new ConflictException(DELIVERY_UNDER_WAY);
    }
    this.dispatcher.wake();
    return toDeliveryResponse(delivery);
  }

  private stored(secret: string, endpointId: Types.ObjectId, expiresAt: Date | null): StoredSecret {
    return { value: this.encryption.encrypt(secret, secretBinding(String(endpointId))), expiresAt };
  }

  private async checkedUrl(url: string): Promise<string> {
    try {
      return (await checkWebhookUrl(url, { allowPrivate: this.config.allowPrivateUrls })).toString();
    } catch (error) {
      if (error instanceof WebhookUrlRefused) throw new BadRequestException(error.message);
      throw error;
    }
  }
}

/**
 * An endpoint sends its events' records wherever its URL says: a key scoped away from an API would
 * read that API's records through it, so it may not make, move or switch on one that sends them.
 */
function assertReadable(readable: readonly RecordedEventType[] | null, enabledEvents: readonly string[]): void {
  if (readable === null) return;
  const sent = enabledEvents.includes('*') ? RECORDED_EVENT_TYPES : (enabledEvents as readonly RecordedEventType[]);
  const refused = sent.find((type) => !readable.includes(type));
  if (refused === undefined) return;
  const api = apiOfEventType(refused);
  throw new ForbiddenException(
    `This API key's scopes do not include the ${api} API, whose events (${refused}) the endpoint would send`,
  );
}

/** `*` stands for every type: listed beside others, it is all that is kept. */
function normaliseEvents(enabledEvents: readonly string[]): string[] {
  return enabledEvents.includes('*') ? ['*'] : [...enabledEvents];
}

/** The endpoint as the audit log names it: by its URL, never its secret. */
function endpointParty(id: string, url: string): AuditParty {
  return { type: 'webhook_endpoint', id, label: url };
}
