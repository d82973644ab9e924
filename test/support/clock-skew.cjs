// Preloaded into one service process (`node --require`) to play a host whose wall clock is off by
// CLOCK_SKEW_MS: Date.now() and new Date() read that much ahead (or behind, when negative). Timers
// and performance.now() are left alone, as a real host's skewed wall clock leaves them. Date stays
// the same class (a proxy of it): libraries that check `instanceof Date` or its name still work.
'use strict';
const skew = Number(process.env.CLOCK_SKEW_MS ?? 0);
const RealDate = globalThis.Date;
const realNow = RealDate.now.bind(RealDate);

RealDate.now = () => realNow() + skew;
globalThis.Date = new Proxy(RealDate, {
  construct(target, args, newTarget) {
    return Reflect.construct(target, args.length === 0 ? [realNow() + skew] : args, newTarget);
  },
  apply(target, self, args) {
    // Date() called as a function: the current time as a string.
    return args.length === 0 ? new target(realNow() + skew).toString() : Reflect.apply(target, self, args);
  },
});
