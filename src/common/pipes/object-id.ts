const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

/** Only the 24-hex form: mongoose's own check also accepts any 12-character string. */
export function isValidObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value);
}
