import type { Schema } from 'mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { TENANT_FIELD } from './tenant-scope';

const QUERY_OPERATIONS = [
  'countDocuments',
  'deleteMany',
  'deleteOne',
  'distinct',
  'find',
  'findOne',
  'findOneAndDelete',
  'findOneAndReplace',
  'findOneAndUpdate',
  'replaceOne',
  'updateMany',
  'updateOne',
] as const;

export class UnscopedQueryError extends Error {
  constructor(model: string, operation: string) {
    super(`Refused an unscoped ${operation} on the tenant model "${model}": filter by ${TENANT_FIELD} (TenantRecords)`);
    this.name = 'UnscopedQueryError';
  }
}

/**
 * Marks a schema as owned by a platform project: every document carries an immutable, required
 * `projectId`, and every query, update, delete and aggregation must filter by it. This is the
 * runtime backstop behind the compile-time `TenantScope` argument: a query that slipped past the
 * types throws instead of reading another tenant's records.
 */
export function tenantOwned(schema: Schema): void {
  schema.add({ [TENANT_FIELD]: { type: MongooseSchema.Types.ObjectId, required: true, immutable: true } });

  for (const operation of QUERY_OPERATIONS) {
    schema.pre(operation, function guardScope() {
      const filter = this.getFilter() as Record<string, unknown>;
      if (filter[TENANT_FIELD] == null) throw new UnscopedQueryError(this.model.modelName, operation);
    });
  }

  schema.pre('aggregate', function guardScope() {
    const [first] = this.pipeline() as unknown as Array<Record<string, Record<string, unknown> | undefined>>;
    if (first?.$match?.[TENANT_FIELD] == null) throw new UnscopedQueryError(this.model().modelName, 'aggregate');
  });

  schema.pre('estimatedDocumentCount', function refuse() {
    throw new UnscopedQueryError(this.model.modelName, 'estimatedDocumentCount');
  });

  // Hydrated document and toJSON never show the tenant: the spec's resources do not carry it.
  const toJSON = schema.get('toJSON') ?? {};
  const previous = typeof toJSON.transform === 'function' ? toJSON.transform : undefined;
  schema.set('toJSON', {
    ...toJSON,
    transform: (doc: unknown, ret: Record<string, unknown>, options: unknown) => {
      const out = previous
        ? (previous as (d: unknown, r: unknown, o: unknown) => Record<string, unknown>)(doc, ret, options)
        : ret;
      delete (out ?? ret)[TENANT_FIELD];
      return out ?? ret;
    },
  });
}
