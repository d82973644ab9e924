/**
 * True for a unique-index violation. MongoDB reports code 11000; FerretDB on SQLite does so for
 * inserts, but for updates it answers an InternalError (code 1) naming SQLite's unique constraint.
 */
export function isDuplicateKey(error: unknown): boolean {
  const failure = error as { code?: unknown; message?: unknown } | null;
  if (failure?.code === 11000) return true;
  return failure?.code === 1 && typeof failure.message === 'string' && failure.message.includes('UNIQUE constraint failed');
}
