import { Injectable, type Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { olderThan, type FinanceListQuery } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { WebhookAttemptClaim } from './webhook-attempt-claim.schema';
import { WebhookDelivery, type DeliveryStatus, type WebhookAttempt } from './webhook-delivery.schema';

export interface NewDelivery {
  projectId: Types.ObjectId;
  endpointId: Types.ObjectId;
  eventId: string;
  eventType: string;
  payload: string;
  firstAttemptAt: Date;
}

/** A fan-out's delivery, its id chosen before it is written. */
export type FreshDelivery = NewDelivery & { _id: Types.ObjectId };

/** How one attempt went. */
export type AttemptOutcome = Pick<WebhookAttempt, 'responseStatus' | 'responseBody' | 'durationMs' | 'error'> & {
  ok: boolean;
};

/** Where the delivery stands after an attempt: due again, or done. */
export type DeliveryState = { status: DeliveryStatus; nextAttemptAt: Date | null };

/** A delivery as it was read, for claiming its next attempt. */
export type ReadDelivery = Pick<WebhookDelivery, '_id' | 'projectId' | 'endpointId' | 'attempt'> &
  Partial<Pick<WebhookDelivery, 'claimedUntil' | 'claimedAt'>>;

/** The claim of the attempt a caller won: recording its outcome needs it. */
export interface Claim {
  attempt: number;
  claimedAt: Date;
  claimedUntil: Date;
}

/** The outcome an attempt gets when its claim lapsed before its own was recorded. */
export const ABANDONED = 'No outcome recorded: the instance sending this attempt stopped before it finished';

/** Attempts one delivery may have: the schedule's, and retries asked for, up to this. */
export const MAX_ATTEMPTS = 100;

/**
 * The webhook deliveries and the claims of their attempts: the only code that reads or writes them.
 *
 * Invariant: attempt n of a delivery is sent only by the one caller whose insert claimed it, and
 * only while the claim lasts. Every attempt, the first included, is claimed just before its send by
 * the insert of its claim (delivery, n), unique, after which the delivery moves from attempt n - 1
 * to n by an update conditional on n - 1. Another sender's claim is taken over only once the caller
 * has watched it lapse on its own clock (`claim`'s `lapsed`), never by comparing clocks. Attempt n's outcome is recorded once, by its claimer, in
 * an update conditional on the delivery still holding that claim. So no two instances send one
 * attempt (on FerretDB too, where only the insert is atomic), a stale read claims nothing, and no
 * outcome is written over another's.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  private readonly records: TenantRecords<WebhookDelivery>;
  /** By project id without a request: the fan-out and the dispatcher, always filtering by the project they act for. */
  private readonly byProject: Records<WebhookDelivery>;
  private readonly claims: Records<WebhookAttemptClaim>;

  constructor(
    @InjectModel(WebhookDelivery.name) model: Model<WebhookDelivery>,
    @InjectModel(WebhookAttemptClaim.name) claims: Model<WebhookAttemptClaim>,
  ) {
    this.records = new TenantRecords(model);
    this.byProject = new Records(model);
    this.claims = new Records(claims);
  }

  /** One delivery of the event to the endpoint: a second fan-out of the same event writes nothing. */
  async insertOnce(delivery: NewDelivery): Promise<WebhookDelivery | null> {
    try {
      return await this.byProject.insert({
        ...delivery,
        status: 'pending',
        attempt: 0,
        nextAttemptAt: delivery.firstAttemptAt,
      });
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  /**
   * The fan-out's deliveries in one command, as stored (the schema's defaults written out), at no
   * attempt yet: due at their `firstAttemptAt`, or, held for the instance that sends them itself, at
   * `heldUntil`. Each attempt is claimed just before it is sent (`claim`). A delivery there already
   * (a relay that ran twice) is left as it is.
   */
  async insertFresh(deliveries: readonly FreshDelivery[], heldUntil?: Date): Promise<void> {
    const now = new Date();
    await this.byProject.insertStored(
      deliveries.map((delivery) => ({
        ...delivery,
        status: 'pending',
        attempt: 0,
        nextAttemptAt: heldUntil ?? delivery.firstAttemptAt,
        claimedUntil: null,
        claimedAt: null,
        attempts: [],
        responseStatus: null,
        responseBody: null,
        durationMs: null,
        error: null,
        createdAt: now,
        updatedAt: now,
      })),
    );
  }

  /** An endpoint's deliveries, newest first, `limit + 1` rows after the cursor. */
  pageOfEndpoint(scope: TenantScope, endpointId: string, query: FinanceListQuery): Promise<WebhookDelivery[]> {
    const endpoint = toObjectId(endpointId);
    if (!endpoint) return Promise.resolve([]);
    return this.records.find(
      scope,
      { endpointId: endpoint, ...olderThan(query.startingAfter) },
      { sort: { _id: -1 }, limit: query.limit + 1 },
    );
  }

  /** An event's deliveries to the project's endpoints, newest first, `limit + 1` rows after the cursor. */
  pageOfEvent(scope: TenantScope, eventId: string, query: FinanceListQuery): Promise<WebhookDelivery[]> {
    return this.records.find(
      scope,
      { eventId, ...olderThan(query.startingAfter) },
      { sort: { _id: -1 }, limit: query.limit + 1 },
    );
  }

  /** The endpoint's delivery, or null. */
  findOfEndpoint(scope: TenantScope, endpointId: string, id: string): Promise<WebhookDelivery | null> {
    const endpoint = toObjectId(endpointId);
    const _id = toObjectId(id);
    if (!endpoint || !_id) return Promise.resolve(null);
    return this.records.findOne(scope, { _id, endpointId: endpoint });
  }

  /**
   * Makes the endpoint's delivery due now (a retry asked for), unless an attempt of it is under way
   * and its claim lasts (that attempt's outcome comes first) or it had every attempt it may have.
   * The delivery after, or null when none matched.
   */
  retryNow(scope: TenantScope, endpointId: string, id: string, now: Date): Promise<WebhookDelivery | null> {
    const endpoint = toObjectId(endpointId);
    const _id = toObjectId(id);
    if (!endpoint || !_id) return Promise.resolve(null);
    const retryable = {
      $or: [{ claimedUntil: null }, { claimedUntil: { $lte: now } }],
      attempt: { $lt: MAX_ATTEMPTS },
      payload: { $exists: true },
    };
    return this.records.updateAndGet(
      scope,
      { _id, endpointId: endpoint, ...retryable },
      { $set: { status: 'pending', nextAttemptAt: now } },
    );
  }

  /** Deliveries of every project whose attempt is due, soonest first. */
  due(now: Date, limit: number): Promise<WebhookDelivery[]> {
    return this.byProject.find(
      { status: 'pending', nextAttemptAt: { $lte: now } },
      { sort: { nextAttemptAt: 1 }, limit, fields: ['projectId', 'nextAttemptAt'] },
    );
  }

  /** The delivery as an attempt needs it (its payload included). */
  forAttempt(projectId: Types.ObjectId, id: Types.ObjectId): Promise<WebhookDelivery | null> {
    return this.byProject.findOne({ _id: id, projectId });
  }

  /**
   * Claims the attempt after the delivery's `attempt` (as read) until `claimedUntil`; the claim when
   * this caller is the one to send it, else null. The claim's document goes in first, against its
   * unique index; then the delivery moves to the attempt, conditionally on being as read: the
   * attempt number is the claim's fencing token, and an outcome is recorded only under it. A claim
   * of another sender (the delivery read still claimed, or the next attempt's claim there) is taken
   * over only when `lapsed` says so for its key: the caller has watched it stand for a claim's whole
   * length on its own clock, so no two instances' clocks are compared. Taken over, an attempt the
   * delivery had moved to is recorded as abandoned (it may have been sent); a claim it never moved to
   * is replaced (it was never sent).
   */
  async claim(
    delivery: ReadDelivery,
    claimedUntil: Date,
    now: Date,
    lapsed: (claimKey: string) => boolean,
    replacing = false,
  ): Promise<Claim | null> {
    const { projectId, _id: deliveryId, endpointId } = delivery;
    if (
      delivery.claimedUntil &&
      !lapsed(
        `${String(deliveryId)}:${delivery.attempt}:${new Date(delivery.claimedAt ?? delivery.claimedUntil).getTime()}`,
      )
    )
      return null;
    const attempt = delivery.attempt + 1;
    const claimId = await this.insertClaim({ projectId, deliveryId, endpointId, attempt, claimedUntil });
    if (!claimId) {
      if (replacing) return null;
      const left = await this.claims.findOne<Pick<WebhookAttemptClaim, '_id' | 'claimedUntil'>>(
        { projectId, deliveryId, attempt },
        { fields: ['claimedUntil'] },
      );
      // Under way, or made since the delivery was read: not this caller's.
      if (!left || !lapsed(`${String(deliveryId)}:${attempt}:${String(left._id)}`)) return null;
      if (!(await this.byProject.exists({ _id: deliveryId, projectId, attempt: delivery.attempt }))) return null;
      await this.claims.deleteOne({ _id: left._id, projectId });
      return this.claim(delivery, claimedUntil, now, lapsed, true);
    }
    const moved = await this.byProject.updateOne(
      {
        _id: deliveryId,
        projectId,
        attempt: delivery.attempt,
        status: 'pending',
        claimedUntil: delivery.claimedUntil ?? null,
      },
      { $set: { attempt, claimedAt: now, claimedUntil, nextAttemptAt: claimedUntil }, ...abandoning(delivery) },
    );
    if (moved.matched > 0) return { attempt, claimedAt: now, claimedUntil };
    // Retried, finished or deleted since it was read: the attempt is not made.
    await this.claims.deleteOne({ _id: claimId, projectId });
    return null;
  }

  /**
   * Gives back a claim won too late to send within it: the delivery goes back to the attempt before,
   * due when the claim would have lapsed, and the claim goes (the attempt was never sent).
   */
  async release(delivery: Pick<WebhookDelivery, '_id' | 'projectId'>, claim: Claim): Promise<void> {
    const released = await this.byProject.updateOne(
      { _id: delivery._id, projectId: delivery.projectId, attempt: claim.attempt, claimedUntil: claim.claimedUntil },
      { $set: { attempt: claim.attempt - 1, claimedUntil: null, claimedAt: null, nextAttemptAt: claim.claimedUntil } },
    );
    // Never sent, and its claimer sends it no more: the next claimer need not watch the claim lapse.
    if (released.matched > 0)
      await this.claims.deleteOne({
        projectId: delivery.projectId,
        deliveryId: delivery._id,
        attempt: claim.attempt,
        claimedUntil: claim.claimedUntil,
      });
  }

  /**
   * Records the claimed attempt's outcome, kept among the delivery's attempts, and where the delivery
   * stands; only while the delivery still holds that claim, so an outcome is recorded once and never
   * over another attempt's.
   */
  async recordAttempt(
    delivery: Pick<WebhookDelivery, '_id' | 'projectId'>,
    claim: Claim,
    outcome: AttemptOutcome,
    state: DeliveryState,
  ): Promise<boolean> {
    const { ok, ...result } = outcome;
    const outcomeFields = {
      responseStatus: result.responseStatus,
      responseBody: result.responseBody,
      durationMs: result.durationMs,
      error: result.error,
    };
    const kept: WebhookAttempt = {
      attempt: claim.attempt,
      status: ok ? 'succeeded' : 'failed',
      ...outcomeFields,
      createdAt: claim.claimedAt,
    };
    // Written as stored (every value here is already of its schema's type): one per attempt.
    const recorded = await this.byProject.updateStored(
      { _id: delivery._id, projectId: delivery.projectId, attempt: claim.attempt, claimedUntil: claim.claimedUntil },
      {
        $set: {
          ...outcomeFields,
          status: state.status,
          nextAttemptAt: state.nextAttemptAt,
          claimedUntil: null,
          claimedAt: null,
          updatedAt: new Date(),
        },
        $push: { attempts: kept },
      },
    );
    return recorded.matched > 0;
  }

  /** Fails the delivery without an attempt (its endpoint was disabled or deleted), unless it changed since it was read. */
  async failUnsent(delivery: ReadDelivery, error: string): Promise<void> {
    await this.byProject.updateOne(
      {
        _id: delivery._id,
        projectId: delivery.projectId,
        attempt: delivery.attempt,
        status: 'pending',
        claimedUntil: delivery.claimedUntil ?? null,
      },
      {
        $set: { status: 'failed', nextAttemptAt: null, claimedUntil: null, claimedAt: null, error },
        ...abandoning(delivery),
      },
    );
  }

  /** The endpoint's deliveries and their claims. */
  async deleteOfEndpoint(scope: TenantScope, endpointId: Types.ObjectId): Promise<void> {
    await this.records.deleteMany(scope, { endpointId });
    await this.claims.deleteMany({ projectId: new Types.ObjectId(scope.projectId), endpointId });
  }

  /**
   * Claims go once `seconds` old, as events do past their retention: by then their attempt's outcome
   * is on the delivery, which moved past it. Returns a function that stops the hourly sweep, where
   * the database has no TTL index.
   */
  expireClaims(seconds: number, logger: Logger): Promise<() => void> {
    return this.claims.expireByAge(seconds, logger);
  }

  /**
   * Drops the payload (the event as sent, with the customer data in it) of every delivery, in every
   * project, that is done and was created before `cutoff`: past the events' retention the event is
   * kept nowhere else either. Its status, outcome and attempts stay listed; a pending delivery keeps
   * its payload until it is done. How many it dropped.
   */
  async dropPayloadsBefore(cutoff: Date): Promise<number> {
    // Across projects, by age alone, like a TTL index: past the tenantOwned guard, to the collection.
    const result = await this.byProject.model.collection.updateMany(
      { createdAt: { $lt: cutoff }, status: { $ne: 'pending' }, payload: { $exists: true } },
      { $unset: { payload: 1 } },
    );
    return result.modifiedCount;
  }

  /** Whether the endpoint's delivery is there with its payload dropped (past the events' retention). */
  payloadDropped(scope: TenantScope, endpointId: string, id: string): Promise<boolean> {
    const endpoint = toObjectId(endpointId);
    const _id = toObjectId(id);
    if (!endpoint || !_id) return Promise.resolve(false);
    return this.records.exists(scope, { _id, endpointId: endpoint, payload: { $exists: false } });
  }

  /** The new claim's id, or null when attempt n of the delivery is claimed already. */
  private async insertClaim(
    fields: Pick<WebhookAttemptClaim, 'projectId' | 'deliveryId' | 'endpointId' | 'attempt' | 'claimedUntil'>,
  ): Promise<Types.ObjectId | null> {
    try {
      return (await this.claims.insert(fields))._id;
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }
}

/** A delivery read with an attempt still claimed (its claim lapsed, or the read would not be due): that attempt, kept as abandoned. */
function abandoning(delivery: ReadDelivery): { $push?: { attempts: WebhookAttempt } } {
  if (!delivery.claimedUntil || delivery.attempt === 0) return {};
  const createdAt = delivery.claimedAt ?? delivery.claimedUntil;
  return {
    $push: {
      attempts: {
        attempt: delivery.attempt,
        status: 'failed',
        responseStatus: null,
        responseBody: null,
        durationMs: null,
        error: ABANDONED,
        createdAt,
      },
    },
  };
}
