import type { PendingEvent } from '../tenancy/recorded-changes';
import { outboxMark, readOutbox, storedOutbox, storedTime, writtenAtAny, writtenByRun } from './stored-outbox';

describe('the stored outbox', () => {
  const at = new Date('2026-11-25T08:00:00.000Z');
  const run = '6b066d39af4b4760c65622fe';
  const created: PendingEvent = { id: 'evt_6b066d3eaf4b4760c65623a6', type: 'customer.created', createdAt: at, before: null, request: { id: 'a43fa0eb-6ee1-4447-8eb3-a1c38ade99cd', idempotencyKey: null } };
  const updated: PendingEvent = { id: 'evt_6b066d3eaf4b4760c65623a7', type: 'customer.updated', createdAt: at, before: '{"firstName":"Ada"}', request: { id: null, idempotencyKey: 'order-7' } };

  it('is one string: the time, the run, then the events, and reads back every event as it was', () => {
    const stored = storedOutbox(at, run, [created, updated]);
    expect(stored.startsWith(`2026-11-25T08:00:00.000Z ${run} [`)).toBe(true);
    expect(stored).not.toContain('evt_');
    expect(readOutbox({ outbox: stored })).toEqual([created, updated]);
    expect(outboxMark(stored)).toEqual({ at, run });
  });

  it('leaves trailing nulls out, and keeps a null between two values', () => {
    const stored = storedOutbox(at, run, [{ ...created, request: { id: null, idempotencyKey: null } }, updated]);
    expect(stored.slice(50)).toBe('[["6b066d3eaf4b4760c65623a6","customer.created"],["6b066d3eaf4b4760c65623a7","customer.updated",null,"order-7","{\\"firstName\\":\\"Ada\\"}"]]');
    expect(readOutbox({ outbox: stored })[0].request).toEqual({ id: null, idempotencyKey: null });
  });

  it('compares as strings the way its times compare', () => {
    const earlier = storedOutbox(new Date('2026-11-25T07:59:59.999Z'), run, [created]);
    const later = storedOutbox(new Date('2026-11-25T08:00:00.001Z'), run, [created]);
    expect(earlier < storedTime(at)).toBe(true);
    expect(storedOutbox(at, run, [created]) < storedTime(at)).toBe(false);
    expect(later < storedTime(at)).toBe(false);
  });

  it("matches a run's outboxes by its id, and no other run's", () => {
    const stored = storedOutbox(at, run, [created]);
    expect(writtenByRun(run).test(stored)).toBe(true);
    expect(writtenByRun('6b066d39af4b4760c65622ff').test(stored)).toBe(false);
    expect(() => writtenByRun('.*')).toThrow();
  });

  it('matches the outboxes written at given times, to the millisecond, whichever run wrote them', () => {
    const later = new Date(at.getTime() + 1);
    const underWay = writtenAtAny([at, at]);
    expect(underWay.test(storedOutbox(at, run, [created]))).toBe(true);
    expect(underWay.test(storedOutbox(at, '6b066d39af4b4760c65622ff', [created]))).toBe(true);
    expect(underWay.test(storedOutbox(later, run, [created]))).toBe(false);
    expect(writtenAtAny([at, later]).test(storedOutbox(later, run, [created]))).toBe(true);
    expect(() => writtenAtAny([])).toThrow();
  });

  it('refuses a run id or an event id it could not read back', () => {
    expect(() => storedOutbox(at, 'short', [created])).toThrow();
    expect(() => storedOutbox(at, run, [{ ...created, id: 'event-1' }])).toThrow();
  });

  it('reads the earlier form: compacted, with the time in the record, or whole, with its own times', () => {
    const compacted = JSON.stringify([{ id: created.id, type: created.type, request: { id: created.request.id } }, { id: updated.id, type: updated.type, before: updated.before, request: { idempotencyKey: 'order-7' } }]);
    expect(readOutbox({ pendingEvents: compacted, eventsAt: at })).toEqual([created, updated]);
    const earlier = new Date('2026-11-24T08:00:00.000Z');
    const whole = JSON.stringify([{ ...created, createdAt: earlier }]);
    expect(readOutbox({ pendingEvents: whole, eventsAt: at })).toEqual([{ ...created, createdAt: earlier }]);
  });

  it('reads both forms from a record that holds both', () => {
    const legacy = JSON.stringify([{ id: created.id, type: created.type, request: { id: created.request.id } }]);
    expect(readOutbox({ outbox: storedOutbox(at, run, [updated]), pendingEvents: legacy, eventsAt: at })).toEqual([updated, created]);
  });

  it('is shorter than the earlier form, whose three fields held the same', () => {
    const earlier = JSON.stringify([{ id: created.id, type: created.type, request: { id: created.request.id } }]);
    expect(storedOutbox(at, run, [created]).length).toBeLessThan(earlier.length + run.length + storedTime(at).length);
  });

  it('reads nothing from a record without one', () => {
    expect(readOutbox({})).toEqual([]);
  });
});
