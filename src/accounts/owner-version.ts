/**
 * The fence of ownership transfers' writes: an account's or a membership's owner version lower than
 * `version`, missing (written before any transfer) or less. A transfer writes only where this holds,
 * and stamps its own version.
 */
export function ownerVersionBelow(version: number): { $or: Record<string, unknown>[] } {
  return { $or: [{ ownerVersion: { $exists: false } }, { ownerVersion: null }, { ownerVersion: { $lt: version } }] };
}
