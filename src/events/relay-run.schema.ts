import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../common/database/schema-options';

/**
 * One relay run: an instance's life, from start to stop. Records its changes write carry the run's
 * id in their outbox; the run says up to when, on its own clock, every event it wrote is in the
 * events collection (`relayedBefore`), and that it is alive (`heartbeatAt`). A run that stops
 * cleanly, or whose leftovers another instance's sweep recorded after its heartbeat lapsed, is
 * `settledAt`. Not tenant-owned: it names no tenant and holds only times.
 */
@Schema({ ...schemaOptions('event_relay_runs'), timestamps: false })
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
