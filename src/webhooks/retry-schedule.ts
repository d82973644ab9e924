/**
 * When the attempt after `attemptsMade` failed ones is due, or null when the schedule is spent.
 * The schedule lists, for each attempt, the seconds to wait after the one before (the first: after
 * the event), as Svix's does: `0,5,300` tries at once, 5 seconds later, then 5 minutes after that.
 */
export function nextAttemptAt(schedule: readonly number[], attemptsMade: number, lastAttemptAt: Date): Date | null {
  if (attemptsMade >= schedule.length) return null;
  return new Date(lastAttemptAt.getTime() + schedule[attemptsMade] * 1000);
}

/** Whether an endpoint subscribed to `enabledEvents` gets events of this type. */
export function subscribesTo(enabledEvents: readonly string[], type: string): boolean {
  return enabledEvents.includes('*') || enabledEvents.includes(type);
}
