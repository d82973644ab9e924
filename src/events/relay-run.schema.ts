import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';

/** Where the runs of builds that wrote the three-field outbox are: read until none is open, never written but to settle one. */
export const LEGACY_RELAY_RUNS = 'event_relay_runs';

/**
 * One relay run: an instance's life, from start to stop. Records its changes write carry the run's
 * id in their outbox; the run says up to when, on its own clock, every event it wrote is in the
 * events collection (`relayedBefore`), and that it is alive (`heartbeatAt`). A run that stops
 * cleanly, or whose leftovers another instance's sweep recorded after its heartbeat lapsed, is
 * `settledAt`. Not tenant-owned: it names no tenant and holds only times.
 *
 * In a collection of its own since the one-field outbox, apart from the earlier runs
 * (`LEGACY_RELAY_RUNS`): an instance of an earlier build, during a rolling upgrade, reads only those,
 * so it never settles a stopped run of this build without recording that run's outboxes, which it
 * cannot read.
 */
@Schema({ ...schemaOptions('relay_runs'), timestamps: false })
export class RelayRun {
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: Date, required: true })
  startedAt: Date;

  @Prop({ type: Date, required: true })
  heartbeatAt: Date;

  @Prop({ type: Date, required: true })
  relayedBefore: Date;

  @Prop({ type: Date, default: null })
  settledAt: Date | null;
}

export const RelayRunSchema = SchemaFactory.createForClass(RelayRun);
RelayRunSchema.index({ settledAt: 1 });
