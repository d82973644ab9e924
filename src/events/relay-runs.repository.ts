import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { Records } from '../database/records';
import { LEGACY_RELAY_RUNS, RelayRun } from './relay-run.schema';

/** The model of the earlier builds' runs: the same schema, in their collection. */
export const LEGACY_RELAY_RUN = 'LegacyRelayRun';

/** The relay runs of every instance: the only code that reads or writes them. */
@Injectable()
export class RelayRunsRepository {
  private readonly records: Records<RelayRun>;
  private readonly legacy: Records<RelayRun>;

  constructor(@InjectModel(RelayRun.name) model: Model<RelayRun>, @InjectModel(LEGACY_RELAY_RUN) legacyModel: Model<RelayRun>) {
    this.records = new Records(model);
    this.legacy = new Records(legacyModel);
    if (this.legacy.collectionName !== LEGACY_RELAY_RUNS) throw new Error(`${LEGACY_RELAY_RUN} must be read from ${LEGACY_RELAY_RUNS}`);
  }

  async start(id: string, now: Date): Promise<void> {
    await this.records.insert({ _id: id, startedAt: now, heartbeatAt: now, relayedBefore: now, settledAt: null });
  }

  /**
   * The run is alive and has recorded every event it wrote before `relayedBefore`. A run that a
   * sweep settled while it was only slow is open again from here.
   */
  async beat(id: string, now: Date, relayedBefore: Date): Promise<void> {
    await this.records.updateOne({ _id: id }, { $set: { heartbeatAt: now, relayedBefore, settledAt: null } }, { keepTimestamps: true });
  }

  async settle(id: string, now: Date, relayedBefore?: Date): Promise<void> {
    await this.records.updateOne({ _id: id }, { $set: { settledAt: now, ...(relayedBefore ? { relayedBefore } : {}) } }, { keepTimestamps: true });
  }

  /** Every run not settled: alive, or stopped with events that may not be recorded. */
  unsettled(): Promise<RelayRun[]> {
    return this.records.find({ settledAt: null });
  }

  /** Every run of an earlier build (three-field outboxes) not settled: during a rolling upgrade, or stopped before it. */
  legacyUnsettled(): Promise<RelayRun[]> {
    return this.legacy.find({ settledAt: null });
  }

  /** A stopped run of an earlier build whose leftovers a sweep recorded. */
  async settleLegacy(id: string, now: Date): Promise<void> {
    await this.legacy.updateOne({ _id: id }, { $set: { settledAt: now } }, { keepTimestamps: true });
  }

  /** Settled runs whose heartbeat is older than `before` go: nothing refers to them any more. */
  async forgetSettled(before: Date): Promise<number> {
    const settledBefore = { settledAt: { $ne: null }, heartbeatAt: { $lt: before } };
    return (await this.records.deleteMany(settledBefore)) + (await this.legacy.deleteMany(settledBefore));
  }
}
