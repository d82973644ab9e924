'use strict';
/** The service's memory bounds (issue 53), judged by bench/startup-cost.js and the quick bench. */
module.exports = {
  /** RSS of the idle service, started with the production Node options: MB. */
  IDLE_RSS_MB: 150,
  /** Peak RSS of the service in any measured round, the upload included: MB. */
  PEAK_RSS_MB: 200,
};
