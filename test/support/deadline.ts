/**
 * Rejects when `work` has not settled within `ms`, so a request that hangs fails the test with a
 * message instead of running into jest's timeout.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Calls `probe` until it returns true or `ms` has passed; returns whether it ever did. */
export async function pollUntil(probe: () => Promise<boolean>, ms: number, intervalMs = 250): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe().catch(() => false)) return true;
    await new Promise((done) => setTimeout(done, intervalMs));
  }
  return false;
}
