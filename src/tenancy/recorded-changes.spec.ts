import {
  fencedOutbox,
  holdsEvent,
  outboxVersion,
  sameOutbox,
  sameVersion,
  type PendingEvent,
} from './recorded-changes';

describe("a record's outbox", () => {
  const event = (id: string): PendingEvent => ({
    id,
    type: 'customer.updated',
    createdAt: new Date(),
    before: null,
    request: { id: null, idempotencyKey: null },
  });

  it('a write is guarded on the outbox it read: by its first event, or by its being empty, or absent', () => {
    expect(sameOutbox([event('evt_a'), event('evt_b')])).toEqual({ 'outbox.id': 'evt_a' });
    expect(sameOutbox([])).toEqual({ outbox: { $size: 0 } });
    expect(sameOutbox(null)).toEqual({ outbox: null });
    expect(sameOutbox(undefined)).toEqual({ outbox: null });
  });

  it('a fence always leaves an outbox the guard of the one it replaced no longer matches, holding no event', () => {
    expect(fencedOutbox([event('evt_a')])).toEqual([]);
    expect(fencedOutbox(null)).toEqual([]);
    expect(fencedOutbox([])).toBeNull();
  });

  it("a write whose answer was lost happened exactly when the record's outbox holds its event", () => {
    expect(holdsEvent({ outbox: [event('evt_a'), event('evt_b')] }, 'evt_b')).toBe(true);
    expect(holdsEvent({ outbox: [event('evt_a')] }, 'evt_c')).toBe(false);
    expect(holdsEvent({ outbox: null }, 'evt_a')).toBe(false);
    expect(holdsEvent(null, 'evt_a')).toBe(false);
  });

  it("a hard delete names the record's version by its outbox's event ids; a fence's empty outbox is another version than none", () => {
    expect(outboxVersion([event('evt_a'), event('evt_b')])).toEqual(['evt_a', 'evt_b']);
    expect(outboxVersion([])).toEqual([]);
    expect(outboxVersion(null)).toBeNull();
    expect(outboxVersion(undefined)).toBeNull();
    expect(sameVersion(['evt_a', 'evt_b'], ['evt_a', 'evt_b'])).toBe(true);
    expect(sameVersion(['evt_a'], ['evt_b'])).toBe(false);
    expect(sameVersion([], null)).toBe(false);
    expect(sameVersion(null, null)).toBe(true);
  });
});
