import { Anchor, Box, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { $api, type Schemas } from '../api/client';
import { COMMON_CURRENCIES, formatDay, formatMoney } from '../money';
import { Link } from '@tanstack/react-router';
import { useSession } from '../session';
import { ListTable, type ListColumn } from '../components/list-table';
import { EmptyState, Field, fieldError, LoadError, SelectField, Spinner } from '../ui';

type Summary = Schemas['PaymentSummaryResponse'];

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The volume of payments per day, for one currency and period, from GET /api/v1/payments/summary. */
export function OverviewPage() {
  const session = useSession();
  const today = new Date();
  const [currency, setCurrency] = useState('usd');
  const [from, setFrom] = useState(isoDay(new Date(today.getTime() - 29 * 86_400_000)));
  const [to, setTo] = useState(isoDay(today));
  const summary = $api.useQuery(
    'get',
    '/api/v1/payments/summary',
    { params: { query: { currency, ...(from ? { from } : {}), ...(to ? { to } : {}) } } },
    { placeholderData: keepPreviousData },
  );
  const data = summary.data;

  return (
    <Stack component="section" gap="md" aria-labelledby="overview-heading">
      <Title order={1} id="overview-heading">
        Overview
      </Title>
      <Text c="dimmed" size="sm">
        Payment volume per day in {session.project?.name ?? 'this project'}: what was charged (gross), what was refunded
        of it, and what stays (net). Days are UTC; a payment counts on the day it was created, its refunds with it.
      </Text>
      <Group
        component="form"
        align="flex-start"
        gap="md"
        aria-label="Period and currency"
        onSubmit={(event) => event.preventDefault()}
      >
        <SelectField
          label="Currency"
          value={currency}
          onChange={(event) => setCurrency(event.target.value)}
          error={fieldError(summary.error, 'currency')}
        >
          {COMMON_CURRENCIES.map((code) => (
            <option key={code} value={code}>
              {code.toUpperCase()}
            </option>
          ))}
        </SelectField>
        <Field
          label="From"
          type="date"
          value={from}
          data-dynamic
          max={to}
          onChange={(event) => setFrom(event.target.value)}
          error={fieldError(summary.error, 'from')}
        />
        <Field
          label="To"
          type="date"
          value={to}
          data-dynamic
          min={from}
          onChange={(event) => setTo(event.target.value)}
          error={fieldError(summary.error, 'to')}
        />
        {summary.isFetching && (
          <Box pt={30}>
            <Spinner label="Loading the summary" />
          </Box>
        )}
      </Group>

      {summary.error && !fieldError(summary.error, 'currency', 'from', 'to') && (
        <LoadError error={summary.error} retry={() => void summary.refetch()} />
      )}

      {data && (
        <Stack gap="md" aria-busy={summary.isFetching || undefined}>
          <SimpleGrid component="dl" cols={{ base: 2, md: 4 }} spacing="md" m={0} aria-label="Totals of the period">
            <Stat label="Gross" value={formatMoney(data.totals.gross, data.currency)} />
            <Stat label="Refunded" value={formatMoney(data.totals.refunded, data.currency)} />
            <Stat label="Net" value={formatMoney(data.totals.net, data.currency)} />
            <Stat label="Payments" value={String(data.totals.count)} />
          </SimpleGrid>
          {data.totals.count === 0 ? (
            <EmptyState title={`No ${data.currency.toUpperCase()} payments in this period.`}>
              Add a customer and a test card on the{' '}
              <Anchor component={Link} to="/customers">
                Customers
              </Anchor>{' '}
              page, then charge it on the{' '}
              <Anchor component={Link} to="/payments">
                Payments
              </Anchor>{' '}
              page; or pick another currency or period.
            </EmptyState>
          ) : (
            <VolumeChart summary={data} />
          )}
        </Stack>
      )}
    </Stack>
  );
}

type Day = Summary['days'][number];

/** The numbers behind the chart, one row a day with payments. */
const DAY_COLUMNS = (money: (value: number) => string): ListColumn<Day>[] => [
  { id: 'day', header: 'Day', cell: (day) => formatDay(day.date), sortBy: (day) => day.date },
  { id: 'gross', header: 'Gross', align: 'right', cell: (day) => money(day.gross), sortBy: (day) => day.gross },
  {
    id: 'refunded',
    header: 'Refunded',
    align: 'right',
    cell: (day) => money(day.refunded),
    sortBy: (day) => day.refunded,
  },
  { id: 'net', header: 'Net', align: 'right', cell: (day) => money(day.net), sortBy: (day) => day.net },
  { id: 'count', header: 'Payments', align: 'right', cell: (day) => day.count, sortBy: (day) => day.count },
];

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder p="md">
      <Text component="dt" size="sm" c="dimmed">
        {label}
      </Text>
      <Text component="dd" m={0} fz={22} fw={700} data-stat={label.toLowerCase()}>
        {value}
      </Text>
    </Paper>
  );
}

const WIDTH = 760;
const HEIGHT = 280;
const PAD = { top: 16, right: 16, bottom: 36, left: 72 };

/** A rounded-up axis maximum: 1, 2 or 5 times a power of ten. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value) ?? value;
}

/** Bars of gross volume per day, the refunded part of each drawn over it, and a line of the net. Drawn by hand in SVG. */
export function VolumeChart({ summary }: { summary: Summary }) {
  const days = summary.days;
  const max = niceMax(Math.max(...days.map((day) => day.gross)));
  const innerWidth = WIDTH - PAD.left - PAD.right;
  const innerHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = innerWidth / days.length;
  const barWidth = Math.max(2, Math.min(28, slot * 0.7));
  const y = (value: number) => PAD.top + innerHeight - (value / max) * innerHeight;
  const x = (index: number) => PAD.left + slot * index + slot / 2;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => share * max);
  const labelEvery = Math.ceil(days.length / 8);
  const netPoints = days.map((day, index) => `${x(index).toFixed(1)},${y(day.net).toFixed(1)}`).join(' ');
  const money = (value: number) => formatMoney(value, summary.currency);

  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby="chart-title"
        data-gross={summary.totals.gross}
        data-refunded={summary.totals.refunded}
        data-net={summary.totals.net}
      >
        <title id="chart-title">
          {`Payment volume per day in ${summary.currency.toUpperCase()}, ${summary.from} to ${summary.to}: gross ${money(summary.totals.gross)}, refunded ${money(summary.totals.refunded)}, net ${money(summary.totals.net)}`}
        </title>
        {ticks.map((tick) => (
          <g key={tick} className="chart-grid">
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text x={PAD.left - 8} y={y(tick)} dy="0.32em" textAnchor="end">
              {money(tick)}
            </text>
          </g>
        ))}
        {days.map((day, index) => (
          <g
            key={day.date}
            className="chart-day"
            data-date={day.date}
            data-gross={day.gross}
            data-refunded={day.refunded}
            data-net={day.net}
          >
            <title>{`${formatDay(day.date)}: gross ${money(day.gross)}, refunded ${money(day.refunded)}, net ${money(day.net)}, ${day.count} payments`}</title>
            <rect
              className="bar-gross"
              x={x(index) - barWidth / 2}
              width={barWidth}
              y={y(day.gross)}
              height={Math.max(0, y(0) - y(day.gross))}
            />
            <rect
              className="bar-refunded"
              x={x(index) - barWidth / 2}
              width={barWidth}
              y={y(day.refunded)}
              height={Math.max(0, y(0) - y(day.refunded))}
            />
            {index % labelEvery === 0 && (
              <text className="chart-label" data-dynamic x={x(index)} y={HEIGHT - PAD.bottom + 18} textAnchor="middle">
                {formatDay(day.date)}
              </text>
            )}
          </g>
        ))}
        <polyline className="line-net" points={netPoints} fill="none" />
      </svg>
      <figcaption className="legend">
        <span className="legend-item">
          <span className="swatch swatch-gross" aria-hidden="true" /> Gross
        </span>
        <span className="legend-item">
          <span className="swatch swatch-refunded" aria-hidden="true" /> Refunded
        </span>
        <span className="legend-item">
          <span className="swatch swatch-net" aria-hidden="true" /> Net
        </span>
      </figcaption>
      <details>
        <summary>Show the numbers</summary>
        <ListTable
          caption="Payment volume per day"
          rows={days.filter((day) => day.count > 0)}
          rowKey={(day) => day.date}
          columns={DAY_COLUMNS(money)}
          initialSort={{ id: 'day' }}
        />
      </details>
    </figure>
  );
}
