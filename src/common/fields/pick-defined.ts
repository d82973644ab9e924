/**
 * Copies the named fields that a request body carries (not `undefined`), and nothing else, so no
 * other field of a body can reach the database. `null` is copied: whether it is allowed is the
 * DTO's business.
 */
export function pickDefined<T extends object, const K extends keyof T>(
  source: T,
  fields: readonly K[],
): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const field of fields) {
    if (source[field] !== undefined) picked[field] = source[field];
  }
  return picked;
}
