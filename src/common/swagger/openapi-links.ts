import type { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** Where a create's answer holds the new record's id: `data.id`, `id` or the content APIs' `_id`. */
function idPointer(schema: Schema | undefined, schemas: Record<string, Schema>): string | undefined {
  const resolve = (node: Schema | undefined) => (node?.$ref ? schemas[String(node.$ref).split('/').pop()!] : node);
  const root = resolve(schema);
  const data = resolve(root?.properties?.data);
  if (data?.properties?.id) return '$response.body#/data/id';
  if (root?.properties?.id) return '$response.body#/id';
  if (root?.properties?._id) return '$response.body#/_id';
  return undefined;
}

const pascal = (operationId: string) => operationId.charAt(0).toUpperCase() + operationId.slice(1);

/**
 * OpenAPI links from every operation that creates a record (a POST answering 201 with the new id) to
 * the operations on that record: those whose path is the create's path and one more parameter,
 * and what lies under it (`/v1/customers` → `/v1/customers/{id}`, `/v1/customers/{id}/cards`...).
 * The new parameter takes the created id; the create's own path parameters carry over. Clients and
 * stateful testers (Schemathesis) follow them from a create to real records. Links a route declares
 * itself are kept.
 */
export function linkCreatesToRecords(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => (item as Record<string, unknown>)[method]).map((method) => ({ path, method, operation: (item as Record<string, Schema>)[method] })),
  );
  for (const create of operations) {
    if (create.method !== 'post') continue;
    const created = create.operation.responses?.['201'];
    const pointer = idPointer(created?.content?.['application/json']?.schema, schemas);
    if (!created || !pointer) continue;
    const inherited = [...create.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    for (const target of operations) {
      const rest = target.path.startsWith(`${create.path}/{`) ? target.path.slice(create.path.length + 2) : undefined;
      if (rest === undefined || !target.operation.operationId) continue;
      const recordParameter = rest.slice(0, rest.indexOf('}'));
      const parameters: Record<string, string> = { [recordParameter]: pointer };
      for (const name of inherited) if (target.path.includes(`{${name}}`)) parameters[name] = `$request.path.${name}`;
      // Every path parameter of the target must be filled, or the link cannot be followed.
      const needed = [...target.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      if (!needed.every((name) => name in parameters)) continue;
      created.links ??= {};
      created.links[pascal(target.operation.operationId)] ??= { operationId: target.operation.operationId, parameters };
    }
  }
  return document;
}
