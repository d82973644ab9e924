import { OnEvent, type OnEventOptions } from '@nestjs/event-emitter';
import type { Types } from 'mongoose';
import type { AuditContext } from '../audit/audit-draft';
import type { TenantScope } from '../tenancy/tenant-scope';

/**
 * The in-process events (`@nestjs/event-emitter`), in one place: each name, its payload and what a
 * listener answers. A module emits through `InProcessEmitter` (the application's `EventEmitter2`,
 * typed by this map) and listens with `@OnInProcessEvent`, so a wrong name, payload or answer does
 * not compile. These are a module's facts for the modules below it (a parent's change that must
 * reach its children); a question between modules is a port, not an event. Events that callers see
 * (`customer.created`, webhooks) are recorded ones, listed in src/events/event-types.ts.
 */
export interface InProcessEvents {
  [ACCOUNT_CREATED]: { payload: AccountCreatedEvent; answer: void };
  [ACCOUNT_MFA_REQUIREMENT_CHANGED]: { payload: AccountMfaRequirementChangedEvent; answer: void };
  [MEMBER_LEAVING]: { payload: MemberLeavingEvent; answer: void };
  [PLATFORM_PROJECT_DELETING]: { payload: PlatformProjectDeletingEvent; answer: boolean };
  [PLATFORM_PROJECT_DELETED]: { payload: PlatformProjectDeletedEvent; answer: void };
  [CUSTOMER_DELETING]: { payload: CustomerDeletingEvent; answer: void };
  [CLIENT_HARD_DELETING]: { payload: ClientHardDeletingEvent; answer: void };
  [CHANNEL_CREATED]: { payload: ChannelCreatedEvent; answer: void };
  [CHANNEL_DELETING]: { payload: ChannelDeletedEvent; answer: void };
  [CHANNEL_DELETED]: { payload: ChannelDeletedEvent; answer: void };
  [PROJECTS_DELETED]: { payload: ProjectsDeletedEvent; answer: void };
  [ASSET_UPLOADED]: { payload: void; answer: void };
  [USER_DELETED]: { payload: UserDeletedEvent; answer: void };
}

export type InProcessEventName = keyof InProcessEvents;
type Payload<N extends InProcessEventName> = InProcessEvents[N]['payload'];
type Answer<N extends InProcessEventName> = InProcessEvents[N]['answer'];
/** The arguments after the name: none for an event without a payload. */
type PayloadArgs<N extends InProcessEventName> = Payload<N> extends void ? [] : [payload: Payload<N>];

/**
 * The application's `EventEmitter2` as this map types it (the in-process events module provides it under this
 * token). `emitAsync` waits for every listener and resolves to their answers; a listener's error
 * rejects it when the listener is declared with `suppressErrors: false`.
 */
export abstract class InProcessEmitter {
  abstract emitAsync<N extends InProcessEventName>(name: N, ...payload: PayloadArgs<N>): Promise<Awaited<Answer<N>>[]>;
  abstract emit<N extends InProcessEventName>(name: N, ...payload: PayloadArgs<N>): boolean;
}

type Listener<N extends InProcessEventName> = (...payload: PayloadArgs<N>) => Answer<N> | Promise<Answer<N>>;

/** `@OnEvent`, with the listener's parameter and answer checked against the map. */
export function OnInProcessEvent<N extends InProcessEventName>(name: N, options?: OnEventOptions) {
  return OnEvent(name, options) as <M extends Listener<N>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ) => void;
}

/** Emitted (awaited) when an account is created: its default platform project must exist before anyone uses it. */
export const ACCOUNT_CREATED = 'account.created';
export interface AccountCreatedEvent {
  accountId: Types.ObjectId;
  defaultProjectId: Types.ObjectId;
}

/**
 * Emitted (awaited) after an account's `requireMfa` changed: sessions acting in it keep a copy of the
 * flag, so a request of theirs needs no read of the account.
 */
export const ACCOUNT_MFA_REQUIREMENT_CHANGED = 'account.mfa_requirement_changed';
export interface AccountMfaRequirementChangedEvent {
  accountId: string;
  requireMfa: boolean;
}

/**
 * Emitted (awaited) before a member leaves an account or is removed from it, so the roles they hold
 * in its channels go first: a member invited back later starts with none, and a channel they were
 * the last owner of passes to the account's owner. An error stops the removal, the member kept.
 * Emitted once more after the membership is gone, for a role given meanwhile; so each listener is
 * idempotent.
 */
export const MEMBER_LEAVING = 'account.member-leaving';
export interface MemberLeavingEvent {
  accountId: string;
  userId: string;
  /** The account's owner, who takes the channels the member leaves without an owner. */
  ownerId: string;
  /** Who removed the member (or the member leaving), whom each change of a channel's roles is audited as. */
  audit: AuditContext;
}

/**
 * Emitted (awaited) before a platform project is deleted, to ask every data module whether it still
 * holds records in the project. Each listener answers `true` (it does) or `false`, through its
 * repository's `holdsAny(event.scope)`; any `true` refuses the delete with `409 Platform project is
 * not empty`. The platform module never reads another module's model.
 */
export const PLATFORM_PROJECT_DELETING = 'platform-project.deleting';
export interface PlatformProjectDeletingEvent {
  scope: TenantScope;
}

/** Emitted (awaited) after a platform project is deleted: what belonged only to it (its API keys) goes with it. */
export const PLATFORM_PROJECT_DELETED = 'platform-project.deleted';
export interface PlatformProjectDeletedEvent {
  accountId: string;
  projectId: string;
}

/**
 * Emitted (awaited) while a customer is being deleted, so its cards go with it: first before the
 * customer itself goes (children first, so a failure part-way leaves the customer in place and a
 * retried delete finishes the cascade), then once more after, for a card saved in between. A
 * listener must therefore be idempotent. Carries the scope: the listener acts inside the same
 * platform project.
 */
export const CUSTOMER_DELETING = 'customer.deleting';
export interface CustomerDeletingEvent {
  scope: TenantScope;
  customerId: string;
}

/**
 * Emitted (awaited) before a client is hard-deleted. A listener that finds the client still
 * referenced in the same platform project throws a ConflictException, and the delete does not happen.
 */
export const CLIENT_HARD_DELETING = 'client.hard-deleting';
export interface ClientHardDeletingEvent {
  scope: TenantScope;
  clientId: string;
}

/** Emitted (awaited) after a channel is created, so its creator becomes its owner; an error withdraws the channel. */
export const CHANNEL_CREATED = 'channel.created';
export interface ChannelCreatedEvent {
  scope: TenantScope;
  channelId: string;
}

/** Who asks for a change of a channel's content, as the collaborators module judges it (`ContentActor`). */
export interface ChannelActor {
  readonly admin: boolean;
  readonly userId: string | null;
}

/**
 * Emitted (awaited) just before a channel's record is deleted, so what goes with it is recorded
 * first (the projects module writes the cascade's record): a stop between the two leaves that
 * record to finish the cascade. An error stops the delete, the channel kept.
 */
export const CHANNEL_DELETING = 'channel.deleting';

/** Emitted (awaited) after a channel is deleted, so its projects go with it. */
export const CHANNEL_DELETED = 'channel.deleted';
export interface ChannelDeletedEvent {
  scope: TenantScope;
  channelId: string;
}

/**
 * Emitted (awaited) after content projects are deleted (one, a cascade, or a channel's), so what
 * hangs off them in the modules below goes too. A handler's error reaches the delete, which then
 * does not answer 200.
 */
export const PROJECTS_DELETED = 'projects.deleted';
export interface ProjectsDeletedEvent {
  scope: TenantScope;
  projectIds: readonly string[];
}

/** Emitted (not awaited) when an upload is complete: the asset processor of this instance looks for work. */
export const ASSET_UPLOADED = 'assets.upload-complete';

/**
 * Emitted (awaited) after a user is deleted: what belongs to the person alone (their search
 * history) goes with them. A listener that fails makes the deletion's caller fail, and deleting
 * again runs every listener again, so each one is idempotent.
 */
export const USER_DELETED = 'user.deleted';
export interface UserDeletedEvent {
  userId: string;
}
