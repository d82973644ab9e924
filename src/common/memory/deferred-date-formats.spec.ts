import { execFileSync } from 'node:child_process';
import { deferDateFormats, type DateFormatDeferral } from './deferred-date-formats';

const OPTIONS: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit', hour: 'numeric' };
const WHEN = Date.UTC(2026, 10, 30, 15, 4, 5);

describe('deferDateFormats', () => {
  const Real = Intl.DateTimeFormat;
  let deferral: DateFormatDeferral | undefined;
  afterEach(() => {
    deferral?.stop();
    Object.defineProperty(Intl, 'DateTimeFormat', { value: Real, writable: true, configurable: true });
  });

  it('makes formatters that answer as the real ones, with or without new', () => {
    deferral = deferDateFormats();
    const deferred = new Intl.DateTimeFormat('en-US', { ...OPTIONS, timeZone: 'UTC' });
    const called = Intl.DateTimeFormat('de-DE', { ...OPTIONS, timeZone: 'UTC' });
    const real = new Real('en-US', { ...OPTIONS, timeZone: 'UTC' });

    expect(deferred).toBeInstanceOf(Real);
    expect(deferred.format(WHEN)).toBe(real.format(WHEN));
    const { format } = deferred;
    expect(format(WHEN)).toBe(real.format(WHEN));
    expect(deferred.formatToParts(WHEN)).toEqual(real.formatToParts(WHEN));
    expect(deferred.formatRange(WHEN, WHEN + 86_400_000)).toBe(real.formatRange(WHEN, WHEN + 86_400_000));
    expect(deferred.resolvedOptions()).toEqual(real.resolvedOptions());
    expect(called.format(WHEN)).toBe(new Real('de-DE', { ...OPTIONS, timeZone: 'UTC' }).format(WHEN));
    expect(Intl.DateTimeFormat.supportedLocalesOf(['en-US'])).toEqual(['en-US']);
    expect(deferral.made()).toBe(2);
  });

  it('builds the real formatter on first use, once', () => {
    let built = 0;
    const counting = new Proxy(Real, {
      construct: (target, args: ConstructorParameters<typeof Real>) => {
        built += 1;
        return new target(...args);
      },
    });
    Object.defineProperty(Intl, 'DateTimeFormat', { value: counting, writable: true, configurable: true });
    deferral = deferDateFormats();

    const deferred = new Intl.DateTimeFormat('en-US', OPTIONS);
    expect(built).toBe(0);
    deferred.format(WHEN);
    deferred.formatToParts(WHEN);
    expect(built).toBe(1);
  });

  it('refuses an invalid option on first use', () => {
    deferral = deferDateFormats();
    const deferred = new Intl.DateTimeFormat('en-US', { timeZone: 'Nowhere/Never' });
    expect(() => deferred.format(WHEN)).toThrow(RangeError);
  });

  it('puts the real constructor back on stop; formatters made before keep working', () => {
    deferral = deferDateFormats();
    const deferred = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC' });
    deferral.stop();
    expect(Intl.DateTimeFormat).toBe(Real);
    expect(deferred.format(WHEN)).toBe(new Real('en-US', { timeZone: 'UTC' }).format(WHEN));
    expect(deferral.made()).toBe(1);
  });

  it('still has work to do: @nestjs/common builds date formats as it is imported (else remove the deferral)', () => {
    const script = `
      let built = 0;
      const Real = Intl.DateTimeFormat;
      Intl.DateTimeFormat = new Proxy(Real, { construct: (target, args) => { built += 1; return new target(...args); } });
      await import('@nestjs/common');
      process.stdout.write(String(built));`;
    const built = Number(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8' }),
    );
    expect(built).toBeGreaterThan(0);
  });
});
