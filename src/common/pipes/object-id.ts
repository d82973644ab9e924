/** An ObjectId as requests may spell it: 24 hex digits, either case (what `@IsMongoId()` accepts). The OpenAPI `pattern`. */
export const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';

const OBJECT_ID = new RegExp(OBJECT_ID_PATTERN);

/** Only the 24-hex form: mongoose's own check also accepts any 12-character string. */
export function isValidObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value);
}
