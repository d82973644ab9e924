import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock/clock';
import type { TenantScope } from '../tenancy/tenant-scope';
import { PaymentSummaryQuery } from './dto/payment-summary.query';
import { PaymentSummaryResponse } from './dto/payment-summary.response';
import { DailyTotals, resolveSummaryPeriod } from './payments-summary';
import { PaymentsRepository } from './payments.repository';

/**
 * Payment volume per day of a project, for one currency.
 *
 * Where the days are summed: FerretDB 1.24 (development and tests) implements no date operator in
 * aggregation (`$dateToString`, `$dateTrunc`, `$year` are "not implemented yet", and neither is
 * `$subtract` or `$toLong` to compute a day from the timestamp), and payments store no day field.
 * So the database does the filtering in one bounded aggregation, `$match` first (the project, the
 * currency, the statuses that moved money, a period of at most 366 days), then `$project` down to
 * the three fields needed; the service streams that through a cursor and adds it up per UTC day in
 * integer minor units, holding one bucket per day, never the payments. On MongoDB alone, a `$group`
 * by `$dateToString` of `createdAt` would move the summing into the database.
 */
@Injectable()
export class PaymentsSummaryService {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly clock: Clock,
  ) {}

  async summarize(scope: TenantScope, query: PaymentSummaryQuery): Promise<PaymentSummaryResponse> {
    const period = resolveSummaryPeriod(query, this.clock.now());
    const currency = query.currency.toLowerCase();
    const totals = new DailyTotals(period);
    const rows = this.payments.summaryRows(scope, currency, period.start, period.end);
    for await (const row of rows) totals.add(row);
    return totals.toResponse(currency);
  }
}
