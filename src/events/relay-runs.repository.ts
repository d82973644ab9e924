import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { Records } from '../database/records';
import { RelayRun } from './relay-run.schema';

/** The relay runs of every instance: the only code that reads or writes them. */
@Injectable()
export class RelayRunsRepository {
  private readonly records: Records<RelayRun>;

  constructor(@InjectModel(RelayRun.name) model: Model<RelayRun>) {
    this.records = new Records(model);
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

  /** Settled runs whose heartbeat is older than `before` go: nothing refers to them any more. */
  async forgetSettled(before: Date): Promise<number> {
    return this.records.deleteMany({ settledAt: { $ne: null }, heartbeatAt: { $lt: before } });
  }
}
