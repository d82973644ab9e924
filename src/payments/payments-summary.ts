import { RequestValidationException } from '../common/pipes/validation.pipe';
import { fromMinorUnits } from '../common/money/money';
import type { PaymentSummaryDay, PaymentSummaryResponse } from './dto/payment-summary.response';
import type { PaymentStatus } from './payment.schema';

/** Payments that moved money: their amount counts as gross, what was refunded of it as refunded. */
export const SUMMARY_STATUSES: readonly PaymentStatus[] = ['succeeded', 'partially_refunded', 'refunded'];
/** The longest period one summary covers, in days (a leap year). */
export const MAX_SUMMARY_DAYS = 366;
/** The period without `from`: this many days, ending with `to`. */
export const DEFAULT_SUMMARY_DAYS = 30;

const DAY_MS = 86_400_000;
const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight UTC of a `YYYY-MM-DD` date that exists on the calendar (not 2026-02-30), else null. */
export function parseCalendarDate(text: unknown): Date | null {
  if (typeof text !== 'string') return null;
  const match = CALENDAR_DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : null;
}

/** `YYYY-MM-DD` of the UTC day a moment falls on. */
export function utcDay(moment: Date): string {
  return moment.toISOString().slice(0, 10);
}

export interface SummaryPeriod {
  /** First and last day, inclusive, `YYYY-MM-DD` (UTC). */
  from: string;
  to: string;
  /** Midnight UTC starting `from`, and the one ending `to` (exclusive). */
  start: Date;
  end: Date;
  days: number;
}

/**
 * The days a summary covers: `to` defaults to today (UTC), `from` to 29 days before `to`. `from`
 * after `to`, or more than 366 days, is a validation error on `from` (the field to change), so a
 * form can show it there. Dates are expected to be valid already (the query DTO checks them).
 */
export function resolveSummaryPeriod(query: { from?: string; to?: string }, now: Date): SummaryPeriod {
  const end = query.to ? parseCalendarDate(query.to) : parseCalendarDate(utcDay(now));
  if (!end) throw new RequestValidationException([{ field: 'to', messages: ['to must be a date as YYYY-MM-DD'] }]);
  const start = query.from
    ? parseCalendarDate(query.from)
    : new Date(end.getTime() - (DEFAULT_SUMMARY_DAYS - 1) * DAY_MS);
  if (!start)
    throw new RequestValidationException([{ field: 'from', messages: ['from must be a date as YYYY-MM-DD'] }]);
  const from = utcDay(start);
  const to = utcDay(end);
  if (start > end) {
    throw new RequestValidationException([
      { field: 'from', messages: [`from must be on or before to (${from} is after ${to})`] },
    ]);
  }
  const days = Math.round((end.getTime() - start.getTime()) / DAY_MS) + 1;
  if (days > MAX_SUMMARY_DAYS) {
    throw new RequestValidationException([
      {
        field: 'from',
        messages: [`the period must be at most ${MAX_SUMMARY_DAYS} days (${from} to ${to} is ${days} days)`],
      },
    ]);
  }
  return { from, to, start, end: new Date(end.getTime() + DAY_MS), days };
}

/** One payment as the summary query reads it. */
export interface SummaryRow {
  createdAt: Date;
  amountMinor: number;
  amountRefundedMinor?: number;
}

interface Bucket {
  grossMinor: number;
  refundedMinor: number;
  count: number;
}

/**
 * Sums payments per UTC day of the period, in integer minor units (exact), and answers in the
 * currency's major units. Every day of the period is listed, days without payments as zeros.
 */
export class DailyTotals {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly period: SummaryPeriod) {
    for (let day = 0; day < period.days; day += 1) {
      this.buckets.set(utcDay(new Date(period.start.getTime() + day * DAY_MS)), {
        grossMinor: 0,
        refundedMinor: 0,
        count: 0,
      });
    }
  }

  add(row: SummaryRow): void {
    const bucket = this.buckets.get(utcDay(new Date(row.createdAt)));
    // Outside the period: the query does not return such rows; never count one anyway.
    if (!bucket) return;
    bucket.grossMinor += row.amountMinor;
    bucket.refundedMinor += row.amountRefundedMinor ?? 0;
    bucket.count += 1;
  }

  toResponse(currency: string): PaymentSummaryResponse {
    const total: Bucket = { grossMinor: 0, refundedMinor: 0, count: 0 };
    const days: PaymentSummaryDay[] = [];
    for (const [date, bucket] of this.buckets) {
      total.grossMinor += bucket.grossMinor;
      total.refundedMinor += bucket.refundedMinor;
      total.count += bucket.count;
      days.push({ date, ...inMajorUnits(bucket, currency) });
    }
    return { currency, from: this.period.from, to: this.period.to, days, totals: inMajorUnits(total, currency) };
  }
}

function inMajorUnits(bucket: Bucket, currency: string) {
  return {
    gross: fromMinorUnits(bucket.grossMinor, currency),
    refunded: fromMinorUnits(bucket.refundedMinor, currency),
    net: fromMinorUnits(bucket.grossMinor - bucket.refundedMinor, currency),
    count: bucket.count,
  };
}
