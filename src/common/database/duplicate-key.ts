/**
 * True for a unique-index violation. MongoDB reports code 11000; FerretDB does so for inserts, but for
 * updates it answers an InternalError (code 1) carrying its backend's own message: SQLite's
 * "UNIQUE constraint failed", PostgreSQL's "duplicate key value violates unique constraint" (SQLSTATE 23505).
 */
export function isDuplicateKey(error: unknown): boolean {
  const failure = error as { code?: unknown; message?: unknown } | null;
  if (failure?.code === 11000) return true;
  if (failure?.code !== 1 || typeof failure.message !== 'string') return false;
  return BACKEND_UNIQUE_VIOLATIONS.some((pattern) => pattern.test(failure.message as string));
}

const BACKEND_UNIQUE_VIOLATIONS = [
  /UNIQUE constraint failed/,
  /duplicate key value violates unique constraint/,
  /SQLSTATE 23505/,
];
