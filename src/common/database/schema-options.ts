import type { SchemaOptions } from '@nestjs/mongoose';

/**
 * Options every schema shares: timestamps, no version key, and a `toJSON` that renames `_id` to
 * `id` and drops the given fields. Responses are built by mappers that copy named fields only; this
 * is the second line of defence for secrets, should a document ever be serialised directly.
 */
export function schemaOptions(collection: string, hiddenFields: string[] = []): SchemaOptions {
  return {
    collection,
    timestamps: true,
    versionKey: false,
    toJSON: {
      transform: (_doc: unknown, ret: Record<string, unknown>) => {
        ret.id = String(ret._id);
        delete ret._id;
        for (const field of hiddenFields) delete ret[field];
        return ret;
      },
    },
  };
}
