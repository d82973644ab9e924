/** Longer than any RFC 3339 date-time. */
export const DATE_TIME_MAX = 40;

const RFC_3339_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A query's date-time (`format: date-time`, RFC 3339) as a Date; anything else, which `Date` would
 * still read (`0.5`, a bare year), becomes Invalid Date, for `@IsDate()` to refuse with 400.
 */
export const toDateTime = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? new Date(value.length <= DATE_TIME_MAX && RFC_3339_DATE_TIME.test(value) ? value : Number.NaN)
    : value;
