import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { schemaOptions } from '../../common/database/schema-options';

/**
 * A client address that logged in to an email successfully, and when it last did. Failures on that
 * email from elsewhere never block it: a stranger's guesses cannot lock its owner out from where
 * they usually log in.
 */
@Schema({ ...schemaOptions('known_login_addresses'), timestamps: false })
export class KnownLoginAddress {
  /** `<email, lower case>\n<client address>`: one record a pair, by the unique `_id`. */
  @Prop({ type: String, required: true })
  _id: string;

  @Prop({ type: Date, required: true })
  at: Date;
}

export const KnownLoginAddressSchema = SchemaFactory.createForClass(KnownLoginAddress);
KnownLoginAddressSchema.index({ at: 1 });
