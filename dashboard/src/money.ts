/** Money in the currency's own decimals (2 for USD, 0 for JPY, 3 for KWD), as Intl knows them from ISO 4217. */
export function formatMoney(amount: number, currency: string, locale?: string): string {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() }).format(amount);
  } catch {
    return `${amount} ${currency.toUpperCase()}`;
  }
}

/** Decimals of the currency's minor unit. */
export function currencyDecimals(currency: string): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions()
        .maximumFractionDigits ?? 2
    );
  } catch {
    return 2;
  }
}

/** The smallest step an amount input takes: 0.01 for USD, 1 for JPY. */
export function amountStep(currency: string): string {
  const decimals = currencyDecimals(currency);
  return decimals === 0 ? '1' : `0.${'0'.repeat(decimals - 1)}1`;
}

/** Currencies offered in pickers; the API takes any ISO 4217 code. */
export const COMMON_CURRENCIES = ['usd', 'eur', 'gbp', 'jpy', 'cad', 'aud', 'chf', 'sek', 'brl', 'kwd'] as const;

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

export function formatDay(day: string): string {
  return new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${day}T00:00:00Z`),
  );
}
