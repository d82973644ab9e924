import { Global, Module } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { InProcessEmitter } from './in-process-events';

/**
 * In-process events: a parent module's facts for the modules below it (a customer's delete reaching
 * its cards), emitted and awaited inside one process, never stored or sent. Owns the application's
 * `EventEmitter2` and the typed map of every such event (in-process-events.ts): its name, its payload
 * and its listeners' answer. Invariant: every emit goes through `InProcessEmitter` and every listener
 * is declared with `@OnInProcessEvent`, so a wrong name, payload or answer does not compile (ESLint
 * refuses the untyped `EventEmitter2` and `@OnEvent` elsewhere). A question between modules is a
 * port, never one of these. Recorded events, which callers see, are the events module's.
 */
@Global()
@Module({
  // One listener per data module answers the platform's questions (is this project empty?): above the default ten.
  imports: [EventEmitterModule.forRoot({ wildcard: false, ignoreErrors: false, maxListeners: 50 })],
  providers: [{ provide: InProcessEmitter, useExisting: EventEmitter2 }],
  exports: [InProcessEmitter],
})
export class InProcessEventsModule {}
