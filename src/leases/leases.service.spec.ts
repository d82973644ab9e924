import type { LeasesRepository } from './leases.repository';
import { Leases } from './leases.service';

describe('Leases.tryWithFencedLease', () => {
  it('releases only once a renewal sent before the work ended has landed', async () => {
    const calls: string[] = [];
    let landRenewal!: () => void;
    const repository = {
      find: async () => null,
      insert: async () => undefined,
      extendFenced: () =>
        new Promise<boolean>((resolve) => {
          calls.push('renewal sent');
          landRenewal = () => {
            calls.push('renewal landed');
            resolve(true);
          };
        }),
      expireFenced: async () => {
        calls.push('released');
      },
    } as unknown as LeasesRepository;
    const holdMs = 60;

    const done = new Leases(repository).tryWithFencedLease('job', holdMs, async () => {
      // Long enough for one renewal (every third of holdMs) to go out, and to stay unanswered.
      await new Promise((resolve) => setTimeout(resolve, holdMs / 2));
      return 'worked';
    });
    await new Promise((resolve) => setTimeout(resolve, holdMs * 2));
    // The work is over and its renewal is still under way: the release waits for it.
    expect(calls).toEqual(['renewal sent']);
    landRenewal();
    expect(await done).toBe('worked');
    expect(calls).toEqual(['renewal sent', 'renewal landed', 'released']);
  });
});
