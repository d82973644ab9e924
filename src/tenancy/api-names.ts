/** The APIs a platform project can enable; `projects` are the content projects of the specification. */
export const API_NAMES = [
  'customers',
  'cards',
  'payments',
  'channels',
  'projects',
  'collections',
  'clients',
  'events',
  'webhooks',
] as const;
export type ApiName = (typeof API_NAMES)[number];
