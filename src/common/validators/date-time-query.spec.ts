import { toDateTime } from './date-time-query';

const read = (value: unknown) => toDateTime({ value });

describe('toDateTime', () => {
  it('reads an RFC 3339 date-time, with a zone or an offset', () => {
    expect((read('2026-11-24T10:00:00Z') as Date).toISOString()).toBe('2026-11-24T10:00:00.000Z');
    expect((read('2026-11-24T12:00:00.5+02:00') as Date).toISOString()).toBe('2026-11-24T10:00:00.500Z');
  });

  it.each(['0.5', '2026', '2026-11-24', 'Tuesday', `2026-11-24T10:00:00${'0'.repeat(40)}Z`])(
    'turns %p into Invalid Date, for @IsDate to refuse',
    (text) => {
      expect(Number.isNaN((read(text) as Date).getTime())).toBe(true);
    },
  );

  it('leaves a value that is not text to the validator', () => {
    expect(read(undefined)).toBeUndefined();
  });
});
