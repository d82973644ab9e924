/** True for MongoDB's (and FerretDB's) duplicate-key error, code 11000. */
export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 11000;
}
