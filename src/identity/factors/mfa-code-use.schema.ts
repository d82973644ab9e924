import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../../common/database/schema-options';

/**
 * A second-factor code that was used: `<userId>:totp:<time step>` or `<userId>:recovery:<hash>`.
 * Claimed by an insert against the unique `_id`, which both MongoDB and FerretDB apply atomically:
 * of two requests with the same code, at once or one after the other, one claims it and the other
 * is refused. Kept a day (far past a code's window), then swept.
 */
@Schema({ ...schemaOptions('mfa_code_uses'), timestamps: { createdAt: true, updatedAt: false } })
export class MfaCodeUse {
  @Prop({ type: String, required: true })
  _id: string;

  createdAt: Date;
}

export const MfaCodeUseSchema = SchemaFactory.createForClass(MfaCodeUse);
