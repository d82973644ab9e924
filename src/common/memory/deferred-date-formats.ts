/** While date formats are deferred: how many were made, and the way back to the real constructor. */
export interface DateFormatDeferral {
  /** Formatters made through the stand-in since it went in. */
  readonly made: () => number;
  /** Puts the real `Intl.DateTimeFormat` back; formatters already made stay deferred. */
  readonly stop: () => void;
}

/**
 * Until `stop()`, `Intl.DateTimeFormat` makes formatters that build the real one on their first use.
 *
 * The first Intl object a process builds maps ICU's locale data into it, and those pages stay
 * resident for the life of the process: megabytes of every instance's memory. `@nestjs/common`
 * builds two date formats as it is imported (its ConsoleLogger's timestamps), though the service
 * logs through pino and formats no date with Intl; main.ts imports the service's modules under this
 * deferral (./while-importing.ts), so they cost nothing unless the ConsoleLogger prints.
 *
 * A deferred formatter answers `format`, `formatToParts`, `formatRange`, `formatRangeToParts` and
 * `resolvedOptions` as the real one would, and is an `instanceof Intl.DateTimeFormat`; a locale or
 * an option the real constructor would refuse is refused on first use instead of at construction.
 */
export function deferDateFormats(): DateFormatDeferral {
  const Real = Intl.DateTimeFormat;
  let made = 0;
  const deferred = (
    locales?: ConstructorParameters<typeof Real>[0],
    options?: Intl.DateTimeFormatOptions,
  ): Intl.DateTimeFormat => {
    made += 1;
    let real: Intl.DateTimeFormat | undefined;
    const formatter = (): Intl.DateTimeFormat => (real ??= new Real(locales, options));
    return Object.create(Real.prototype as object, {
      format: { value: (date?: Date | number) => formatter().format(date) },
      formatToParts: { value: (date?: Date | number) => formatter().formatToParts(date) },
      formatRange: { value: (start: Date | number, end: Date | number) => formatter().formatRange(start, end) },
      formatRangeToParts: {
        value: (start: Date | number, end: Date | number) => formatter().formatRangeToParts(start, end),
      },
      resolvedOptions: { value: () => formatter().resolvedOptions() },
    }) as Intl.DateTimeFormat;
  };
  // A proxy keeps the constructor's own properties (`supportedLocalesOf`, `prototype`, its name).
  const standIn = new Proxy(Real, {
    construct: (_target, args: Parameters<typeof deferred>) => deferred(...args),
    apply: (_target, _this, args: Parameters<typeof deferred>) => deferred(...args),
  });
  Object.defineProperty(Intl, 'DateTimeFormat', { value: standIn, writable: true, configurable: true });
  return {
    made: () => made,
    stop: () => {
      if (Intl.DateTimeFormat === standIn)
        Object.defineProperty(Intl, 'DateTimeFormat', { value: Real, writable: true, configurable: true });
    },
  };
}
