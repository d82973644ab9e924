import { Global, Module } from '@nestjs/common';
import { LeasesModule } from '../leases/leases.module';
import { JobRunner } from './job-runner';
import { JobTimers } from './job-timers';

/**
 * The periodic work of every module, run by one runner (`JobRunner`, global, so each module
 * registers its job without importing this one): each job by name with its interval, a step at a
 * time. Its invariant: a job registered with a lease runs on one instance at a time, and every step
 * run under the lease has a fencing token larger than any earlier holder's, which the step's
 * guarded writes carry, so a holder taken over (stalled, or its clock ahead) changes nothing after
 * its successor's first write. A failed step is logged and tried again with backoff; once stopping,
 * no step starts and the running ones end before the modules close.
 */
@Global()
@Module({
  imports: [LeasesModule],
  providers: [JobRunner, JobTimers],
  exports: [JobRunner],
})
export class JobsModule {}
