import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { olderThan, type FinanceListQuery } from '../common/paging/finance-list.query';
import { Records, toObjectId } from '../database/records';
import { TenantRecords } from '../tenancy/tenant-records';
import type { TenantScope } from '../tenancy/tenant-scope';
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

/** A delivery as it was read, for claiming its next attempt: where it stood, and the claim it held, if any. */
export type ReadDelivery = Pick<WebhookDelivery, '_id' | 'projectId' | 'endpointId' | 'attempt'> &
  Partial<Pick<WebhookDelivery, 'claimedUntil' | 'claimedAt' | 'claimToken'>>;

/** A due delivery as the poll reads it: enough to claim its next attempt, not its payload or attempts. */
export type DueDelivery = ReadDelivery & Pick<WebhookDelivery, 'status' | 'nextAttemptAt'>;

/** The claim of the attempt a caller won: recording its outcome needs it. */
export interface Claim {
  attempt: number;
  /** The fencing token every later write of this attempt is guarded on. */
  token: string;
  claimedAt: Date;
  claimedUntil: Date;
}

/** The outcome an attempt gets when its claim lapsed before its own was recorded. */
export const ABANDONED = 'No outcome recorded: the instance sending this attempt stopped before it finished';

/** Attempts one delivery may have: the schedule's, and retries asked for, up to this. */
export const MAX_ATTEMPTS = 100;

/** A new claim's fencing token: random, so no two claims of one attempt ever share it. */
export function newClaimToken(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * The webhook deliveries, and the claims of their attempts kept in them: the only code that reads or
 * writes them.
 *
 * Invariant: attempt n of a delivery is sent only by the one caller whose write claimed it, and only
 * while the claim lasts. The claim is in the delivery itself (attempt number, fencing token, until
 * when): a fan-out's delivery sent at once is inserted already claimed for attempt 1, and any other
 * attempt is claimed by one update guarded on the delivery as read (its attempt number and the token
 * of the claim it held, or none), atomic as every single-document write is. Another sender's claim is
 * taken over only once the caller has watched it stand on its own clock (`claim`'s `lapsed`), never by
 * comparing clocks. Attempt n's outcome is recorded once, by its claimer, in an update guarded on its
 * attempt number and token. So no two instances send one attempt at a time, a stale read claims
 * nothing, and no outcome is written over another's.
 */
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
   * A fan-out's deliveries in one command, as stored (the schema's defaults written out): those with
   * a claim inserted already claimed for their first attempt (the insert is the claim: the caller
   * sends them now), the others at no attempt yet, due at their `firstAttemptAt`. A delivery there
   * already (a relay that ran twice) is left as it is; the ids of those this call did not write come
   * back, so their claim is not used.
   */
  async insertFanOut(deliveries: readonly { delivery: FreshDelivery; claim?: Claim }[]): Promise<Set<string>> {
    const now = new Date();
    const { notInserted } = await this.byProject.insertStored(
      deliveries.map(({ delivery, claim }) => ({
        ...delivery,
        status: 'pending',
        attempt: claim ? claim.attempt : 0,
        nextAttemptAt: claim ? claim.claimedUntil : delivery.firstAttemptAt,
        claimToken: claim?.token ?? null,
        claimedUntil: claim?.claimedUntil ?? null,
        claimedAt: claim?.claimedAt ?? null,
        attempts: [],
        responseStatus: null,
        responseBody: null,
        durationMs: null,
        error: null,
        createdAt: now,
        updatedAt: now,
      })),
    );
    return new Set(notInserted.map((index) => String(deliveries[index].delivery._id)));
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

  /** Deliveries of every project whose attempt is due, soonest first, as `claim` needs them. */
  due(now: Date, limit: number): Promise<DueDelivery[]> {
    return this.byProject.find(
      { status: 'pending', nextAttemptAt: { $lte: now } },
      {
        sort: { nextAttemptAt: 1 },
        limit,
        fields: [
          'projectId',
          'endpointId',
          'status',
          'attempt',
          'nextAttemptAt',
          'claimToken',
          'claimedUntil',
          'claimedAt',
        ],
      },
    );
  }

  /**
   * Claims the attempt after the delivery's `attempt` (as read) until `claimedUntil`, by one update
   * guarded on the delivery being as read: pending, at that attempt, holding the same claim (its token
   * and end) or none. The claim when this caller is the one to send it, else null. A claim of another
   * sender is taken over only when `lapsed` says so for its key: the caller has watched it stand for a
   * claim's whole length on its own clock, so no two instances' clocks are compared. Taken over, the
   * attempt it held is recorded as abandoned (it may have been sent).
   */
  async claim(
    delivery: ReadDelivery,
    claimedUntil: Date,
    now: Date,
    lapsed: (claimKey: string) => boolean,
  ): Promise<Claim | null> {
    if (delivery.claimedUntil && !lapsed(claimKey(delivery))) return null;
    const claim = this.nextClaim(delivery, claimedUntil, now);
    const moved = await this.byProject.updateStored(asRead(delivery), claiming(delivery, claim));
    return moved.matched > 0 ? claim : null;
  }

  /** `claim`, answering the delivery as claimed (its payload included) with the claim, in the same command. */
  async claimAndRead(
    delivery: ReadDelivery,
    claimedUntil: Date,
    now: Date,
    lapsed: (claimKey: string) => boolean,
  ): Promise<{ claim: Claim; delivery: WebhookDelivery } | null> {
    if (delivery.claimedUntil && !lapsed(claimKey(delivery))) return null;
    const claim = this.nextClaim(delivery, claimedUntil, now);
    const claimed = await this.byProject.updateAndGet(asRead(delivery), claiming(delivery, claim), {
      include: ['payload'],
    });
    return claimed ? { claim, delivery: claimed } : null;
  }

  /**
   * Gives back a claim won too late to send within it: the delivery goes back to the attempt before,
   * unclaimed, due when the claim would have lapsed (the attempt was never sent, so the next claimer
   * need not watch it lapse).
   */
  async release(delivery: Pick<WebhookDelivery, '_id' | 'projectId'>, claim: Claim): Promise<void> {
    await this.byProject.updateStored(
      { _id: delivery._id, projectId: delivery.projectId, attempt: claim.attempt, claimToken: claim.token },
      {
        $set: {
          attempt: claim.attempt - 1,
          claimToken: null,
          claimedUntil: null,
          claimedAt: null,
          nextAttemptAt: claim.claimedUntil,
        },
      },
    );
  }

  /**
   * Records the claimed attempt's outcome, kept among the delivery's attempts, and where the delivery
   * stands; only while the delivery still holds that claim (its attempt number and token), so an
   * outcome is recorded once, and a sender whose claim was taken over writes nothing.
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
      { _id: delivery._id, projectId: delivery.projectId, attempt: claim.attempt, claimToken: claim.token },
      {
        $set: {
          ...outcomeFields,
          status: state.status,
          nextAttemptAt: state.nextAttemptAt,
          claimToken: null,
          claimedUntil: null,
          claimedAt: null,
          updatedAt: new Date(),
        },
        $push: { attempts: kept },
      },
    );
    return recorded.matched > 0;
  }

  /**
   * Fails the delivery without an attempt (its endpoint was disabled or deleted), unless it changed
   * since it was read; an attempt another sender still holds is left to it until `lapsed` says so, as
   * for `claim`.
   */
  async failUnsent(delivery: ReadDelivery, error: string, lapsed: (claimKey: string) => boolean): Promise<void> {
    if (delivery.claimedUntil && !lapsed(claimKey(delivery))) return;
    await this.byProject.updateStored(asRead(delivery), {
      $set: {
        status: 'failed',
        nextAttemptAt: null,
        claimToken: null,
        claimedUntil: null,
        claimedAt: null,
        error,
        updatedAt: new Date(),
      },
      ...abandoning(delivery),
    });
  }

  /** The endpoint's deliveries. */
  async deleteOfEndpoint(scope: TenantScope, endpointId: Types.ObjectId): Promise<void> {
    await this.records.deleteMany(scope, { endpointId });
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

  private nextClaim(delivery: ReadDelivery, claimedUntil: Date, now: Date): Claim {
    return { attempt: delivery.attempt + 1, token: newClaimToken(), claimedAt: now, claimedUntil };
  }
}

/**
 * The delivery as read, as a filter: pending, at its attempt, holding the same claim or none. A claim
 * written before claims had a token (no `claimToken`) matches on its end alone, as `null` matches a
 * field that is not there.
 */
function asRead(delivery: ReadDelivery): Record<string, unknown> {
  return {
    _id: delivery._id,
    projectId: delivery.projectId,
    status: 'pending',
    attempt: delivery.attempt,
    claimToken: delivery.claimToken ?? null,
    claimedUntil: delivery.claimedUntil ?? null,
  };
}

/** The update that makes `claim` the delivery's attempt under way, keeping the attempt it takes over as abandoned. */
function claiming(
  delivery: ReadDelivery,
  claim: Claim,
): { $set: Record<string, unknown>; $push?: Record<string, unknown> } {
  return {
    $set: {
      attempt: claim.attempt,
      claimToken: claim.token,
      claimedAt: claim.claimedAt,
      claimedUntil: claim.claimedUntil,
      nextAttemptAt: claim.claimedUntil,
    },
    ...abandoning(delivery),
  };
}

/**
 * What the caller's watch knows a claim of another sender by: the delivery, the attempt and the
 * claim (its token, or for a claim written before tokens, when it was made), so a later claim of the
 * same attempt is watched anew.
 */
export function claimKey(delivery: ReadDelivery): string {
  const claim = delivery.claimToken ?? new Date(delivery.claimedAt ?? delivery.claimedUntil!).getTime();
  return `${String(delivery._id)}:${delivery.attempt}:${claim}`;
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
