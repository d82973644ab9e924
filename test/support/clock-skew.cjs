// Preloaded into one service process (`node --require`) to play a host whose wall clock is off by
// CLOCK_SKEW_MS: Date.now() and new Date() read that much ahead (or behind, when negative). Timers
// and performance.now() are left alone, as a real host's skewed wall clock leaves them.
'use strict';
const skew = Number(process.env.CLOCK_SKEW_MS ?? 0);
const RealDate = globalThis.Date;

class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + skew);
    else super(...args);
  }

  static now() {
    return RealDate.now() + skew;
  }
}

globalThis.Date = SkewedDate;
