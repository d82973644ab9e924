/**
 * ISO 4217 currency codes that payments accept, with the number of decimals of their minor unit.
 * Fund codes, precious metals, special drawing rights and the testing codes are left out.
 */
const ZERO_DECIMAL = ['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'];

const THREE_DECIMAL = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'];

const TWO_DECIMAL = [
  'AED', 'AFN', 'ALL', 'AMD', 'ANG', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BMD', 'BND',
  'BOB', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHF', 'CNY', 'COP', 'CRC', 'CUP', 'CVE', 'CZK',
  'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP', 'GBP', 'GEL', 'GHS', 'GIP', 'GMD', 'GTQ', 'GYD',
  'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'IRR', 'JMD', 'KES', 'KGS', 'KHR', 'KPW', 'KYD', 'KZT', 'LAK',
  'LBP', 'LKR', 'LRD', 'LSL', 'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN',
  'MYR', 'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'QAR', 'RON',
  'RSD', 'RUB', 'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLE', 'SLL', 'SOS', 'SRD', 'SSP', 'STN', 'SVC',
  'SYP', 'SZL', 'THB', 'TJS', 'TMT', 'TOP', 'TRY', 'TTD', 'TWD', 'TZS', 'UAH', 'USD', 'UYU', 'UZS', 'VED', 'VES',
  'WST', 'XCD', 'XCG', 'YER', 'ZAR', 'ZMW', 'ZWG', 'ZWL',
];

const EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...ZERO_DECIMAL.map((code) => [code.toLowerCase(), 0] as const),
  ...TWO_DECIMAL.map((code) => [code.toLowerCase(), 2] as const),
  ...THREE_DECIMAL.map((code) => [code.toLowerCase(), 3] as const),
]);

/** Accepted codes, lower case, sorted. */
export const CURRENCY_CODES: readonly string[] = [...EXPONENTS.keys()].sort();

export function isCurrencyCode(code: unknown): code is string {
  return typeof code === 'string' && EXPONENTS.has(code.toLowerCase());
}

/** Decimals of the currency's minor unit: 0 for JPY, 2 for USD, 3 for KWD. */
export function minorUnitExponent(currency: string): number {
  const exponent = EXPONENTS.get(currency.toLowerCase());
  if (exponent === undefined) throw new RangeError(`Unknown currency: ${currency}`);
  return exponent;
}
