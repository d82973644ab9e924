import 'reflect-metadata';
import { EVENT_LISTENER_METADATA, EventEmitter2 } from '@nestjs/event-emitter';
import {
  CHANNEL_DELETED,
  type ChannelDeletedEvent,
  CUSTOMER_DELETING,
  type CustomerDeletingEvent,
  type InProcessEmitter,
  OnInProcessEvent,
  PLATFORM_PROJECT_DELETING,
  type PlatformProjectDeletingEvent,
} from './in-process-events';
import { tenantScope } from '../tenancy/tenant-scope';

const scope = tenantScope('6650c0ffee00000000000001', '6650c0ffee00000000000002');

class Listener {
  @OnInProcessEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  holds(event: PlatformProjectDeletingEvent): boolean {
    return event.scope.projectId === scope.projectId;
  }

  @OnInProcessEvent(CUSTOMER_DELETING)
  onCustomerDeleting(event: CustomerDeletingEvent): void {
    void event;
  }

  // @ts-expect-error A listener of one event cannot take another's payload.
  @OnInProcessEvent(CUSTOMER_DELETING)
  wrongPayload(event: ChannelDeletedEvent): void {
    void event;
  }

  // @ts-expect-error A listener's answer is the one the map names (a boolean here).
  @OnInProcessEvent(PLATFORM_PROJECT_DELETING)
  wrongAnswer(event: PlatformProjectDeletingEvent): string {
    return event.scope.projectId;
  }
}

describe('the in-process event map', () => {
  it('declares listeners as @OnEvent does, with their options', () => {
    const metadata = Reflect.getMetadata(EVENT_LISTENER_METADATA, Listener.prototype.holds) as {
      event: string;
      options?: { suppressErrors?: boolean };
    }[];
    expect(metadata).toEqual([
      expect.objectContaining({
        event: PLATFORM_PROJECT_DELETING,
        options: expect.objectContaining({ suppressErrors: false }),
      }),
    ]);
  });

  it("is the application's emitter, typed: payloads in, listeners' answers out", async () => {
    const emitter = new EventEmitter2();
    const listener = new Listener();
    emitter.on(PLATFORM_PROJECT_DELETING, (event: PlatformProjectDeletingEvent) => listener.holds(event));
    const events = emitter as unknown as InProcessEmitter;
    const answers: boolean[] = await events.emitAsync(PLATFORM_PROJECT_DELETING, { scope });
    expect(answers).toEqual([true]);
    // @ts-expect-error A payload of another event does not compile.
    await events.emitAsync(CHANNEL_DELETED, { scope, customerId: 'x' } satisfies CustomerDeletingEvent);
    const deleted: ChannelDeletedEvent = { scope, channelId: 'c' };
    expect(await events.emitAsync(CHANNEL_DELETED, deleted)).toEqual([]);
  });
});
