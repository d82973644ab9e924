import type { PendingEvent } from '../tenancy/recorded-changes';
import { readOutbox, storedOutbox } from './stored-outbox';

describe('the stored outbox', () => {
  const at = new Date('2026-11-25T08:00:00.000Z');
  const created: PendingEvent = { id: 'evt_6b066d3eaf4b4760c65623a6', type: 'customer.created', createdAt: at, before: null, request: { id: 'a43fa0eb-6ee1-4447-8eb3-a1c38ade99cd', idempotencyKey: null } };
  const updated: PendingEvent = { id: 'evt_6b066d3eaf4b4760c65623a7', type: 'customer.updated', createdAt: at, before: '{"firstName":"Ada"}', request: { id: null, idempotencyKey: 'order-7' } };

  it('keeps only what the record does not hold already, and reads back every event as it was', () => {
    const stored = storedOutbox([created, updated]);
    expect(stored).not.toContain('createdAt');
    expect(stored).not.toContain('null');
    expect(readOutbox({ pendingEvents: stored, eventsAt: at })).toEqual([created, updated]);
  });

  it('reads an outbox stored whole, before compaction, with its own times', () => {
    const earlier = new Date('2026-11-24T08:00:00.000Z');
    const whole = JSON.stringify([{ ...created, createdAt: earlier }]);
    expect(readOutbox({ pendingEvents: whole, eventsAt: at })).toEqual([{ ...created, createdAt: earlier }]);
  });

  it('is shorter than the events stored whole', () => {
    expect(storedOutbox([created]).length).toBeLessThan(JSON.stringify([created]).length * 0.7);
  });

  it('reads nothing from a record without one', () => {
    expect(readOutbox({})).toEqual([]);
  });
});
