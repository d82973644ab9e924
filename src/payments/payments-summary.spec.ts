import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { RequestValidationException } from '../common/pipes/validation.pipe';
import { PaymentSummaryQuery } from './dto/payment-summary.query';
import { DailyTotals, parseCalendarDate, resolveSummaryPeriod } from './payments-summary';

const NOW = new Date('2026-11-23T15:30:00Z');

function fieldErrors(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof RequestValidationException) return error.fieldErrors;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('parseCalendarDate', () => {
  it('reads YYYY-MM-DD dates that exist, as midnight UTC', () => {
    expect(parseCalendarDate('2026-11-01')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseCalendarDate('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });

  it('refuses other shapes and dates the calendar lacks', () => {
    for (const text of [
      '2026-02-29',
      '2026-13-01',
      '2026-11-31',
      '2026-11-1',
      '2026-11-01T00:00:00Z',
      '',
      'today',
      20261101,
    ]) {
      expect(parseCalendarDate(text)).toBeNull();
    }
  });
});

describe('resolveSummaryPeriod', () => {
  it('defaults to the last 30 days, today (UTC) included', () => {
    const period = resolveSummaryPeriod({}, NOW);
    expect(period).toMatchObject({ from: '2026-10-25', to: '2026-11-23', days: 30 });
    expect(period.start.toISOString()).toBe('2026-10-25T00:00:00.000Z');
    expect(period.end.toISOString()).toBe('2026-11-24T00:00:00.000Z');
  });

  it('counts 30 days back from a given `to`, and up to today from a given `from`', () => {
    expect(resolveSummaryPeriod({ to: '2026-03-01' }, NOW)).toMatchObject({
      from: '2026-01-31',
      to: '2026-03-01',
      days: 30,
    });
    expect(resolveSummaryPeriod({ from: '2026-11-01' }, NOW)).toMatchObject({
      from: '2026-11-01',
      to: '2026-11-23',
      days: 23,
    });
  });

  it('takes one day, and up to 366', () => {
    expect(resolveSummaryPeriod({ from: '2026-11-05', to: '2026-11-05' }, NOW).days).toBe(1);
    expect(resolveSummaryPeriod({ from: '2024-01-01', to: '2024-12-31' }, NOW).days).toBe(366);
  });

  it('refuses `from` after `to`, and more than 366 days, on the field `from`', () => {
    expect(fieldErrors(() => resolveSummaryPeriod({ from: '2026-11-06', to: '2026-11-05' }, NOW))).toEqual([
      { field: 'from', messages: ['from must be on or before to (2026-11-06 is after 2026-11-05)'] },
    ]);
    expect(fieldErrors(() => resolveSummaryPeriod({ from: '2025-01-01', to: '2026-01-02' }, NOW))).toEqual([
      { field: 'from', messages: ['the period must be at most 366 days (2025-01-01 to 2026-01-02 is 367 days)'] },
    ]);
    // `to` defaults to today: a `from` in the future is after it.
    expect(fieldErrors(() => resolveSummaryPeriod({ from: '2026-12-01' }, NOW))[0].field).toBe('from');
  });
});

describe('DailyTotals', () => {
  it('sums per UTC day in minor units and answers in major units, every day listed', () => {
    const totals = new DailyTotals(resolveSummaryPeriod({ from: '2026-11-01', to: '2026-11-03' }, NOW));
    totals.add({ createdAt: new Date('2026-11-01T00:00:00.000Z'), amountMinor: 10, amountRefundedMinor: 0 });
    totals.add({ createdAt: new Date('2026-11-01T23:59:59.999Z'), amountMinor: 20, amountRefundedMinor: 5 });
    totals.add({ createdAt: new Date('2026-11-03T12:00:00.000Z'), amountMinor: 1999, amountRefundedMinor: 1999 });
    // Outside the period: never counted.
    totals.add({ createdAt: new Date('2026-11-04T00:00:00.000Z'), amountMinor: 500 });
    expect(totals.toResponse('usd')).toEqual({
      currency: 'usd',
      from: '2026-11-01',
      to: '2026-11-03',
      days: [
        { date: '2026-11-01', gross: 0.3, refunded: 0.05, net: 0.25, count: 2 },
        { date: '2026-11-02', gross: 0, refunded: 0, net: 0, count: 0 },
        { date: '2026-11-03', gross: 19.99, refunded: 19.99, net: 0, count: 1 },
      ],
      totals: { gross: 20.29, refunded: 20.04, net: 0.25, count: 3 },
    });
  });

  it('uses the currency decimals', () => {
    const totals = new DailyTotals(resolveSummaryPeriod({ from: '2026-11-01', to: '2026-11-01' }, NOW));
    totals.add({ createdAt: new Date('2026-11-01T08:00:00Z'), amountMinor: 1005, amountRefundedMinor: 1 });
    expect(totals.toResponse('kwd').totals).toEqual({ gross: 1.005, refunded: 0.001, net: 1.004, count: 1 });
    expect(totals.toResponse('jpy').totals).toEqual({ gross: 1005, refunded: 1, net: 1004, count: 1 });
  });
});

describe('PaymentSummaryQuery', () => {
  async function errorsOf(query: Record<string, unknown>) {
    const errors = await validate(plainToInstance(PaymentSummaryQuery, query));
    return Object.fromEntries(errors.map((error) => [error.property, Object.values(error.constraints ?? {})]));
  }

  it('needs an ISO 4217 currency, in any case', async () => {
    expect(await errorsOf({ currency: 'USD' })).toEqual({});
    expect(await errorsOf({})).toHaveProperty('currency');
    expect(await errorsOf({ currency: 'usx' })).toEqual({ currency: ['currency must be an ISO 4217 currency code'] });
  });

  it('takes dates as YYYY-MM-DD that exist', async () => {
    expect(await errorsOf({ currency: 'usd', from: '2026-11-01', to: '2026-11-23' })).toEqual({});
    expect(await errorsOf({ currency: 'usd', from: '2026-02-30', to: 'yesterday' })).toEqual({
      from: ['from must be a date as YYYY-MM-DD'],
      to: ['to must be a date as YYYY-MM-DD'],
    });
  });
});
