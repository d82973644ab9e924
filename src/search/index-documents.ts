import { toMinorUnits } from '../common/money/money';
import type { PublishedEvent } from '../events/event-body';
import type { CustomerResponse } from '../customers/dto/customer.response';
import type { PaymentResponse } from '../payments/dto/payment.response';
import type { ProjectResponse } from '../projects/dto/project.response';
import type { IndexChange, IndexDocument, IndexedKind } from './search-index';

/**
 * What the index keeps of each record, from the object its events carry (what its GET returns), so
 * an event and a rebuild from the records give the same row.
 *
 * A version orders one record's changes: the change's time in milliseconds, then the event id. A
 * write's events carry the record as written (its `updatedAt`); a delete, the record as it was, so
 * its version is the delete's own time. A rebuild's row has no event id, so an event of the same
 * write, which names the same state, replaces it harmlessly.
 */
export function versionAt(time: Date | string, eventId = ''): string {
  return `${String(new Date(time).getTime()).padStart(15, '0')}:${eventId}`;
}

const seconds = (iso: string) => Math.floor(new Date(iso).getTime() / 1000);

export function projectDocument(tenant: string, project: ProjectResponse, version: string): IndexDocument {
  return {
    kind: 'project',
    tenant,
    id: project._id,
    version,
    title: project.primaryTitle,
    tags: (project.topicIds ?? []).join(' '),
    body: project.description ?? '',
    created: seconds(project.createdAt),
    fields: {
      status: project.status,
      access: project.access,
      channelId: project.channelId,
      parentId: project.parentId,
      type: project.projectTypeId,
    },
  };
}

export function customerDocument(tenant: string, customer: CustomerResponse, version: string): IndexDocument {
  const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
  return {
    kind: 'customer',
    tenant,
    id: customer.id,
    version,
    title: name,
    tags: '',
    body: customer.email ?? '',
    created: seconds(customer.createdAt),
    fields: { email: customer.email, name: name || null, phone: customer.phone ?? null, metadata: {} },
  };
}

export function paymentDocument(tenant: string, payment: PaymentResponse, version: string): IndexDocument {
  return {
    kind: 'payment',
    tenant,
    id: payment.id,
    version,
    title: payment.description ?? '',
    tags: '',
    body: '',
    created: seconds(payment.createdAt),
    fields: {
      amount: toMinorUnits(payment.amount, payment.currency),
      currency: payment.currency,
      customer: payment.customer,
      status: payment.status,
      metadata: {},
    },
  };
}

const BUILDERS: Record<IndexedKind, (tenant: string, object: never, version: string) => IndexDocument> = {
  project: projectDocument,
  customer: customerDocument,
  payment: paymentDocument,
};

/** Whether events of this type (`payment.created`...) change what the index holds. */
export function changesIndex(type: string): boolean {
  const resource = type.slice(0, type.indexOf('.'));
  return resource === 'project' || resource === 'customer' || resource === 'payment';
}

/** The change an event makes to the index; null for the events of what the index does not hold. */
export function changeOfEvent(event: PublishedEvent): IndexChange | null {
  if (!changesIndex(event.type)) return null;
  const [resource, change] = event.type.split('.') as [IndexedKind, string];
  const body = JSON.parse(event.body) as { data?: { object?: Record<string, unknown> } };
  const object = body.data?.object;
  if (!object) return null;
  const id = String(resource === 'project' ? object._id : object.id);
  if (change === 'deleted')
    return { remove: { kind: resource, tenant: event.projectId, id, version: versionAt(event.createdAt, event.id) } };
  const version = versionAt(typeof object.updatedAt === 'string' ? object.updatedAt : event.createdAt, event.id);
  return { put: BUILDERS[resource](event.projectId, object as never, version) };
}
