import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { olderThan, type FinanceListQuery } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { WebhookAttempt } from './webhook-attempt.schema';
import { WebhookDelivery, type DeliveryStatus } from './webhook-delivery.schema';

export interface NewDelivery {
  projectId: Types.ObjectId;
  endpointId: Types.ObjectId;
  eventId: string;
  eventType: string;
  payload: string;
  firstAttemptAt: Date;
}

/** How one attempt went. */
export type AttemptOutcome = Pick<WebhookAttempt, 'responseStatus' | 'responseBody' | 'durationMs' | 'error'> & { ok: boolean };

/** Where the delivery stands after an attempt: due again, or done. */
export type DeliveryState = { status: DeliveryStatus; nextAttemptAt: Date | null };

/** What a claim needs of the delivery, as it was read. */
export type ClaimedDelivery = Pick<WebhookDelivery, '_id' | 'projectId' | 'endpointId' | 'attempt'>;

/** The outcome an attempt gets when its claim lapsed before its own was recorded. */
export const ABANDONED = 'No outcome recorded: the instance sending this attempt stopped before it finished';

/**
 * The webhook deliveries and their attempts: the only code that reads or writes them.
 *
 * Invariant: attempt n of a delivery is sent by the one instance that inserted the attempt document
 * (delivery, n), unique, while its claim lasts; the delivery then moves from attempt n - 1 to n by a
 * conditional update, and only the claimer records attempt n's outcome, conditionally on the
 * delivery still being at attempt n. So no two instances send one attempt, a stale read of a
 * delivery claims nothing, and no attempt's outcome is written over another's.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  private readonly records: TenantRecords<WebhookDelivery>;
  /** By project id without a request: the fan-out and the dispatcher, always filtering by the project they act for. */
  private readonly byProject: Records<WebhookDelivery>;
  private readonly attempts: Records<WebhookAttempt>;

  constructor(@InjectModel(WebhookDelivery.name) model: Model<WebhookDelivery>, @InjectModel(WebhookAttempt.name) attempts: Model<WebhookAttempt>) {
    this.records = new TenantRecords(model);
    this.byProject = new Records(model);
    this.attempts = new Records(attempts);
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
        claimedUntil: null,
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

  /**
   * The latest `perDelivery` attempts of each of these deliveries, newest first; one read, on the
   * unique (delivery, attempt) index.
   */
  attemptsOf(scope: TenantScope, deliveries: readonly Pick<WebhookDelivery, '_id' | 'attempt'>[], perDelivery: number): Promise<WebhookAttempt[]> {
    if (deliveries.length === 0) return Promise.resolve([]);
    const latest = deliveries.map((delivery) => ({ deliveryId: delivery._id, attempt: { $gt: delivery.attempt - perDelivery } }));
    return this.attempts.find({ $or: latest, projectId: new Types.ObjectId(scope.projectId) }, { sort: { deliveryId: 1, attempt: -1 } });
  }

  /**
   * Makes the endpoint's delivery due now (a retry asked for), unless an attempt of it is under way
   * and its claim lasts: that attempt's outcome comes first. The delivery after, or null when none
   * matched.
   */
  retryNow(scope: TenantScope, endpointId: string, id: string, now: Date): Promise<WebhookDelivery | null> {
    const endpoint = toObjectId(endpointId);
    const _id = toObjectId(id);
    if (!endpoint || !_id) return Promise.resolve(null);
    const unclaimed = { $or: [{ claimedUntil: null }, { claimedUntil: { $lte: now } }] };
    return this.records.updateAndGet(scope, { _id, endpointId: endpoint, ...unclaimed }, { $set: { status: 'pending', nextAttemptAt: now } });
  }

  /** Whether the endpoint has this delivery. */
  existsOfEndpoint(scope: TenantScope, endpointId: string, id: string): Promise<boolean> {
    const endpoint = toObjectId(endpointId);
    const _id = toObjectId(id);
    if (!endpoint || !_id) return Promise.resolve(false);
    return this.records.exists(scope, { _id, endpointId: endpoint });
  }

  /** Deliveries of every project whose attempt is due, soonest first. */
  due(now: Date, limit: number): Promise<WebhookDelivery[]> {
    return this.byProject.find({ status: 'pending', nextAttemptAt: { $lte: now } }, { sort: { nextAttemptAt: 1 }, limit, fields: ['projectId', 'nextAttemptAt'] });
  }

  /** The delivery as an attempt needs it (its payload included). */
  forAttempt(projectId: Types.ObjectId, id: Types.ObjectId): Promise<WebhookDelivery | null> {
    return this.byProject.findOne({ _id: id, projectId });
  }

  /**
   * Claims the attempt after the delivery's `attempt` (as read) until `claimedUntil`: true when this
   * caller is the one to send it. The attempt's document goes in first, against its unique index
   * (atomic on FerretDB too, where the guarded update below is not); an attempt left unrecorded by a
   * claimer that stopped is taken over: it is recorded as abandoned, or, when its claimer stopped
   * before moving the delivery to it (so it was never sent), replaced.
   */
  async claim(delivery: ClaimedDelivery, claimedUntil: Date, now: Date, replacing = false): Promise<boolean> {
    const { projectId, _id: deliveryId, endpointId } = delivery;
    const attempt = delivery.attempt + 1;
    const inserted = await this.insertAttempt({ projectId, deliveryId, endpointId, attempt, status: 'pending', claimedUntil });
    if (!inserted) {
      if (replacing) return false;
      const left = await this.attempts.findOne<Pick<WebhookAttempt, '_id' | 'status' | 'claimedUntil'>>(
        { projectId, deliveryId, attempt },
        { fields: ['status', 'claimedUntil'] },
      );
      // Under way, or made since the delivery was read: not this caller's.
      if (!left || left.status !== 'pending' || new Date(left.claimedUntil) > now) return false;
      if (!(await this.byProject.exists({ _id: deliveryId, projectId, attempt: delivery.attempt }))) return false;
      await this.attempts.deleteOne({ _id: left._id, projectId, status: 'pending' });
      return this.claim(delivery, claimedUntil, now, true);
    }
    const moved = await this.byProject.updateOne(
      { _id: deliveryId, projectId, attempt: delivery.attempt, status: 'pending' },
      { $set: { attempt, nextAttemptAt: claimedUntil, claimedUntil } },
    );
    if (moved.matched === 0) {
      // Retried, finished or deleted since it was read: the attempt is not made.
      await this.attempts.deleteOne({ _id: inserted, projectId });
      return false;
    }
    if (delivery.attempt > 0) {
      await this.attempts.updateOne({ projectId, deliveryId, attempt: delivery.attempt, status: 'pending' }, { $set: { status: 'failed', error: ABANDONED } });
    }
    return true;
  }

  /**
   * Records attempt `attempt`'s outcome on its own document and where its delivery stands, each only
   * while it is still that attempt's to record: an outcome is never written over another.
   */
  async recordAttempt(delivery: Pick<WebhookDelivery, '_id' | 'projectId'>, attempt: number, outcome: AttemptOutcome, state: DeliveryState): Promise<void> {
    const { projectId, _id: deliveryId } = delivery;
    const { ok, ...result } = outcome;
    const recorded = await this.attempts.updateOne({ projectId, deliveryId, attempt, status: 'pending' }, { $set: { ...result, status: ok ? 'succeeded' : 'failed' } });
    // Recorded already, or taken over as abandoned (the delivery then moved on): nothing more is this caller's.
    if (recorded.matched === 0) return;
    await this.byProject.updateOne({ _id: deliveryId, projectId, attempt }, { $set: { ...result, ...state, claimedUntil: null } });
  }

  /** Fails the delivery without an attempt (its endpoint was disabled or deleted), unless it moved on since it was read. */
  async failUnsent(delivery: Pick<WebhookDelivery, '_id' | 'projectId' | 'attempt'>, error: string): Promise<void> {
    await this.byProject.updateOne(
      { _id: delivery._id, projectId: delivery.projectId, attempt: delivery.attempt, status: 'pending' },
      { $set: { status: 'failed', nextAttemptAt: null, claimedUntil: null, error } },
    );
  }

  /** The endpoint's deliveries and their attempts. */
  async deleteOfEndpoint(scope: TenantScope, endpointId: Types.ObjectId): Promise<void> {
    await this.records.deleteMany(scope, { endpointId });
    await this.attempts.deleteMany({ projectId: new Types.ObjectId(scope.projectId), endpointId });
  }

  /** The new attempt's id, or null when attempt n of the delivery exists already. */
  private async insertAttempt(fields: Pick<WebhookAttempt, 'projectId' | 'deliveryId' | 'endpointId' | 'attempt' | 'status' | 'claimedUntil'>): Promise<Types.ObjectId | null> {
    try {
      return (await this.attempts.insert(fields))._id;
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }
}
