import type { OpenAPIObject } from '@nestjs/swagger';
import { PROJECT_HEADER_NAME } from './security-schemes';

type Schema = Record<string, any>;
type Link = { operationId: string; parameters?: Record<string, string>; requestBody?: Record<string, string> };
type Operation = { path: string; method: string; operation: Schema };
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
/** How deep an answer is searched for a record it embeds (`data.account` is two levels down). */
const EMBED_DEPTH = 3;

const refName = (node: Schema | undefined): string | undefined => {
  const ref = node?.$ref ?? (node?.allOf?.length === 1 ? node.allOf[0].$ref : undefined);
  return ref ? String(ref).split('/').pop() : undefined;
};
const pascal = (operationId: string) => operationId.charAt(0).toUpperCase() + operationId.slice(1);
const camel = (segment: string) => segment.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
const singular = (segment: string) =>
  camel(segment.endsWith('ies') ? `${segment.slice(0, -3)}y` : segment.replace(/s$/, ''));
const pathParameters = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
const jsonBody = (operation: Schema) => operation.requestBody?.content?.['application/json']?.schema;
/** The JSON schema of an operation's answer with this status. */
const jsonAnswer = (operation: Schema, status: string) =>
  operation.responses?.[status]?.content?.['application/json']?.schema;
const isPublic = (operation: Schema) =>
  operation.security?.some((requirement: Schema) => Object.keys(requirement).length === 0);
const takesHeader = (operation: Schema, name: string) =>
  (operation.parameters ?? []).some(
    (parameter: Schema) => parameter.in === 'header' && parameter.name.toLowerCase() === name.toLowerCase(),
  );
/** Follows a `$ref` (or a single `allOf`) to the document's named schema; any other node as it is. */
function resolverOf(document: OpenAPIObject): (node: Schema | undefined) => Schema | undefined {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  return (node) => {
    const name = refName(node);
    return name ? schemas[name] : node;
  };
}
const operationsOf = (document: OpenAPIObject): Operation[] =>
  Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => (item as Record<string, unknown>)[method]).map((method) => ({
      path,
      method,
      operation: (item as Record<string, Schema>)[method],
    })),
  );

/** A create: a POST answering 201 with the new record, whose id is at `pointer`. */
interface Create extends Operation {
  pointer: string;
  /** The created record's schema, when it is a named one that other answers can embed. */
  record?: string;
  /** `customer` for `/v1/customers`: what a field naming one of these records is called. */
  noun: string;
}

function asCreate(candidate: Operation, resolve: (node: Schema | undefined) => Schema | undefined): Create | undefined {
  if (candidate.method !== 'post') return undefined;
  const root = jsonAnswer(candidate.operation, '201');
  const noun = singular(
    candidate.path
      .split('/')
      .filter((segment) => segment && !segment.startsWith('{'))
      .pop() ?? '',
  );
  const data = resolve(resolve(root)?.properties?.data);
  if (data?.properties?.id)
    return { ...candidate, pointer: '$response.body#/data/id', record: refName(resolve(root)?.properties?.data), noun };
  for (const key of ['id', '_id']) {
    if (resolve(root)?.properties?.[key])
      return { ...candidate, pointer: `$response.body#/${key}`, record: refName(root), noun };
  }
  return undefined;
}

/** A list: a GET answering 200 with an array of records (the answer itself or its `data`); `pointer` names the first one's id. */
interface List extends Operation {
  pointer: string;
  /** The listed records' schema, when it is a named one. */
  record?: string;
}

function asList(candidate: Operation, resolve: (node: Schema | undefined) => Schema | undefined): List | undefined {
  if (candidate.method !== 'get') return undefined;
  const root = jsonAnswer(candidate.operation, '200');
  for (const [prefix, array] of [
    ['', resolve(root)],
    ['/data', resolve(resolve(root)?.properties?.data)],
  ] as const) {
    if (array?.type !== 'array') continue;
    const item = resolve(array.items);
    const key = ['id', '_id'].find((name) => item?.properties?.[name]);
    if (key) return { ...candidate, pointer: `$response.body#${prefix}/0/${key}`, record: refName(array.items) };
  }
  return undefined;
}

/**
 * OpenAPI links from every operation that creates a record (a POST answering 201 with the new id) to
 * the operations that take that record, so that clients and stateful testers (Schemathesis) can go
 * from a create to real records:
 *
 * - the operations on the record: those whose path is the create's path and one more parameter,
 *   and what lies under it (`/v1/customers` → `/v1/customers/{id}`, `/v1/customers/{id}/cards`...).
 *   The new parameter takes the created id; the create's own path parameters carry over.
 * - the operations that name such a record elsewhere, by a body field or a required query parameter
 *   called after it (`customer` or `customerId` for `/v1/customers`: a card's or a payment's
 *   customer, the cards of a customer), when only one create makes records of that name.
 * - the same links from any other answer that embeds the record (the caller's account in
 *   `GET /api/v1/me` or a signup's answer is the record `POST /api/v1/accounts` creates).
 *
 * Public operations are not linked to: a link carries the caller's record to the caller's next call.
 * Links a route declares itself are kept, and no second link to the same operation is added. An
 * operation that another operation on the record links to itself is left to that link: a restore
 * follows the soft delete, as a new record has nothing to restore.
 */
export function linkCreatesToRecords(document: OpenAPIObject): OpenAPIObject {
  const resolve = resolverOf(document);
  const operations = operationsOf(document);
  const creates = operations
    .map((candidate) => asCreate(candidate, resolve))
    .filter((create): create is Create => create !== undefined);
  const nouns = new Map<string, number>();
  for (const create of creates) nouns.set(create.noun, (nouns.get(create.noun) ?? 0) + 1);
  // The paths of the operations whose answers declare a link to each operation, before any is added here.
  const declaredFrom = new Map<string, string[]>();
  const declaring = new Set<string>();
  for (const source of operations) {
    for (const response of Object.values<Schema>(source.operation.responses ?? {})) {
      for (const link of Object.values<Link>(response.links ?? {})) {
        declaredFrom.set(link.operationId, [...(declaredFrom.get(link.operationId) ?? []), source.path]);
        declaring.add(source.operation.operationId);
      }
    }
  }

  /** The links from an answer holding the record `create` makes, its id at `pointer`. */
  function linksTo(create: Create, pointer: string, available: string[]): Link[] {
    const links: Link[] = [];
    for (const target of operations) {
      if (!target.operation.operationId || isPublic(target.operation)) continue;
      const needed = pathParameters(target.path);
      const rest = target.path.startsWith(`${create.path}/{`) ? target.path.slice(create.path.length + 2) : undefined;
      if (rest !== undefined) {
        if (declaredFrom.get(target.operation.operationId)?.some((path) => path.startsWith(`${create.path}/{`)))
          continue;
        const parameters: Record<string, string> = { [rest.slice(0, rest.indexOf('}'))]: pointer };
        for (const name of pathParameters(create.path))
          if (needed.includes(name)) parameters[name] = `$request.path.${name}`;
        // Every path parameter of the target must be filled, or the link cannot be followed.
        if (
          needed.every(
            (name) =>
              name in parameters && (!parameters[name].startsWith('$request.path.') || available.includes(name)),
          )
        ) {
          links.push({ operationId: target.operation.operationId, parameters });
        }
        continue;
      }
      if (target.path === create.path || target.path.startsWith(`${create.path}/`) || nouns.get(create.noun) !== 1)
        continue;
      const names = [create.noun, `${create.noun}Id`];
      const parameters: Record<string, string> = {};
      for (const name of needed) {
        if (names.includes(name)) parameters[name] = pointer;
        else if (pathParameters(create.path).includes(name) && available.includes(name))
          parameters[name] = `$request.path.${name}`;
      }
      if (!needed.every((name) => name in parameters)) continue;
      for (const parameter of target.operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.required && names.includes(parameter.name))
          parameters[`query.${parameter.name}`] = pointer;
      }
      const requestBody: Record<string, string> = {};
      for (const [field, property] of Object.entries<Schema>(resolve(jsonBody(target.operation))?.properties ?? {})) {
        if (names.includes(field) && property.type === 'string') requestBody[field] = pointer;
      }
      const named =
        Object.keys(parameters).some((name) => parameters[name] === pointer) || Object.keys(requestBody).length > 0;
      if (!named) continue;
      links.push({
        operationId: target.operation.operationId,
        ...(Object.keys(parameters).length ? { parameters } : {}),
        ...(Object.keys(requestBody).length ? { requestBody } : {}),
      });
    }
    return links;
  }

  for (const create of creates)
    addLinks(create.operation.responses['201'], linksTo(create, create.pointer, pathParameters(create.path)));

  // Other answers that embed a created record, found by its schema's name: one only a single create
  // answers with (a shared `{ message, id }` answer names no record).
  const byRecord = new Map<string, Create | undefined>();
  for (const create of creates)
    if (create.record) byRecord.set(create.record, byRecord.has(create.record) ? undefined : create);
  for (const source of operations) {
    for (const [status, response] of Object.entries<Schema>(source.operation.responses ?? {})) {
      if (!/^2\d\d$/.test(status)) continue;
      for (const [pointer, record] of embeddedRecords(response.content?.['application/json']?.schema, resolve)) {
        const create = byRecord.get(record);
        if (!create || source === create || source.path === create.path || source.path.startsWith(`${create.path}/`))
          continue;
        const idKey = create.pointer.split('/').pop();
        addLinks(response, linksTo(create, `$response.body#${pointer}/${idKey}`, pathParameters(source.path)));
      }
    }
  }

  // A data API's list, from its first record: the records a caller reaches without making them, as
  // one made by a create must first pass every rule of its body. Where the list's path holds no
  // operation on a record (a client's channels), the record's own path is the one whose item
  // answers with the same schema (`/channels/{id}`).
  for (const list of operations.map((candidate) => asList(candidate, resolve))) {
    if (!list || !takesHeader(list.operation, PROJECT_HEADER_NAME)) continue;
    const answers = (candidate: Operation) => {
      const root = jsonAnswer(candidate.operation, '200');
      return refName(root) === list.record || refName(resolve(root)?.properties?.data) === list.record;
    };
    const itemOf = (candidate: Operation) => /^(.*)\/\{[^}/]+\}$/.exec(candidate.path)?.[1];
    const collection = operations.some((candidate) => candidate.path.startsWith(`${list.path}/{`))
      ? list.path
      : operations
          .find((candidate) => candidate.method === 'get' && list.record && itemOf(candidate) && answers(candidate))
          ?.path.replace(/\/\{[^}/]+\}$/, '');
    if (!collection) continue;
    const noun = singular(
      collection
        .split('/')
        .filter((segment) => segment && !segment.startsWith('{'))
        .pop() ?? '',
    );
    // Not to the operations that remove the record (a delete, or a soft delete, which links to its
    // restore): the first record is every link's, and a caller following one to a removal would
    // leave the others a record that is gone.
    const removes = (operationId: string) =>
      operations.some(
        ({ method, operation }) =>
          operation.operationId === operationId &&
          (method === 'delete' || (method === 'patch' && declaring.has(operationId))),
      );
    const links = linksTo({ ...list, path: collection, noun }, list.pointer, pathParameters(list.path)).filter(
      (link) => !removes(link.operationId),
    );
    addLinks(list.operation.responses['200'], links);
  }

  // The record is in the project its source acted in, so the link names that project: without it, a
  // caller (or a tester filling the optional header at random) acts in another one, where the record
  // is unknown. Except from the create of a record that can be gone while nothing deleted its own
  // path (soft deleted, or removed with the record it names or lies under) to an operation on it
  // whose every parameter the link would then fill: such a call that finds nothing is taken for a
  // new record lost, so the project is left to the default. A record with `deletedAt` can be soft
  // deleted.
  const softDeletable = (path: string) =>
    operations.some(({ path: candidate, operation }) => {
      if (!candidate.startsWith(`${path}/{`)) return false;
      const root = resolve(jsonAnswer(operation, '200'));
      return Boolean(root?.properties?.deletedAt ?? resolve(root?.properties?.data)?.properties?.deletedAt);
    });
  const namesAnother = (operationId: string) =>
    operations.some(({ operation }) =>
      Object.values<Schema>(operation.responses ?? {}).some((response) =>
        Object.values<Link>(response.links ?? {}).some((link) => link.operationId === operationId && link.requestBody),
      ),
    );
  for (const source of operations) {
    if (!takesHeader(source.operation, PROJECT_HEADER_NAME)) continue;
    const canVanish =
      source.method === 'post' &&
      (pathParameters(source.path).length > 0 ||
        softDeletable(source.path) ||
        namesAnother(source.operation.operationId));
    for (const [status, response] of Object.entries<Schema>(source.operation.responses ?? {})) {
      if (!/^2\d\d$/.test(status)) continue;
      for (const link of Object.values<Link>(response.links ?? {})) {
        const target = operations.find(({ operation }) => operation.operationId === link.operationId);
        if (!target || !takesHeader(target.operation, PROJECT_HEADER_NAME)) continue;
        const parameters = {
          [`header.${PROJECT_HEADER_NAME}`]: `$request.header.${PROJECT_HEADER_NAME}`,
          ...link.parameters,
        };
        const fillsEvery = (target.operation.parameters ?? []).every((parameter: Schema) =>
          [parameter.name, `${parameter.in}.${parameter.name}`].some((key) => key in parameters),
        );
        if (canVanish && target.path.startsWith(`${source.path}/`) && fillsEvery) continue;
        link.parameters = parameters;
      }
    }
  }
  return document;
}

/** Adds `links` to an answer, leaving the links it has (by name or by target operation) as they are. */
function addLinks(response: Schema, links: Link[]): void {
  if (!links.length) return;
  response.links ??= {};
  const targeted = new Set(Object.values<Link>(response.links).map((link) => link.operationId));
  for (const link of links) {
    if (targeted.has(link.operationId)) continue;
    targeted.add(link.operationId);
    response.links[pascal(link.operationId)] ??= link;
  }
}

/** An answer's field that names records of another kind, and the operations on such a record that its value links to. */
export interface NamedRecords {
  /** The operations whose answer (of `status`) holds the field. */
  sources: string[];
  status: string;
  /** The JSON pointer of the id to follow (the first record's first one: `/0/projectIds/0`). */
  pointer: string;
  /** The path parameter of the targets that takes it. */
  parameter: string;
  targets: string[];
}

/**
 * OpenAPI links from answers naming records of another kind by a field (a client's `projectIds`) to
 * the operations on such a record, for what no create or list links (a client's content projects
 * are made under a channel). Added before `linkCreatesToRecords`, they are declared links to it: it
 * carries `X-Project-Id` along them, and adds none of its own to the same operation from the source.
 */
export function linkNamedRecords(document: OpenAPIObject, fields: NamedRecords[]): OpenAPIObject {
  const operations = operationsOf(document);
  for (const field of fields) {
    for (const source of field.sources) {
      const response = operations.find(({ operation }) => operation.operationId === source)?.operation.responses?.[
        field.status
      ];
      if (!response) throw new Error(`No ${field.status} answer of ${source} to link ${field.pointer} from`);
      const links = field.targets.map((target) => {
        if (!operations.some(({ operation }) => operation.operationId === target))
          throw new Error(`No operation ${target} to link ${source} to`);
        return { operationId: target, parameters: { [field.parameter]: `$response.body#${field.pointer}` } };
      });
      addLinks(response, links);
    }
  }
  return document;
}

/** An answer that names a platform project of the caller's account: the operation, its status and the id's JSON pointer. */
export interface ProjectSource {
  operationId: string;
  status: string;
  pointer: string;
}

/**
 * OpenAPI links from the answers that name a platform project of the caller's account (`sources`) to
 * every create and every list that acts in a project (takes `X-Project-Id`) and needs no other path
 * or query parameter: the link fills the header with that project. A data API's create names no
 * record of the account, so without these a client or a stateful tester finds no way from the
 * account to its data. The links onward from a create or a list name no project: a request without
 * the header acts in the account's default project, so a source names that one.
 */
export function linkProjectsToDataApis(document: OpenAPIObject, sources: ProjectSource[]): OpenAPIObject {
  const resolve = resolverOf(document);
  const operations = operationsOf(document);
  const creates = operations
    .map((candidate) => asCreate(candidate, resolve))
    .filter(
      (create): create is Create =>
        create !== undefined &&
        !pathParameters(create.path).length &&
        takesHeader(create.operation, PROJECT_HEADER_NAME),
    );
  const lists = operations.filter(
    (candidate) =>
      asList(candidate, resolve) &&
      !pathParameters(candidate.path).length &&
      takesHeader(candidate.operation, PROJECT_HEADER_NAME) &&
      !(candidate.operation.parameters ?? []).some(
        (parameter: Schema) => parameter.required && parameter.in !== 'header',
      ),
  );
  for (const source of sources) {
    const response = operations.find(({ operation }) => operation.operationId === source.operationId)?.operation
      .responses?.[source.status];
    if (!response)
      throw new Error(`No ${source.status} answer of ${source.operationId} to link a platform project from`);
    const value = `$response.body#${source.pointer}`;
    addLinks(
      response,
      [...creates, ...lists].map((target) => ({
        operationId: target.operation.operationId,
        parameters: { [`header.${PROJECT_HEADER_NAME}`]: value },
      })),
    );
  }
  return document;
}

/** The named objects an answer holds outside arrays, with their JSON pointers (`/data/account`). */
function embeddedRecords(
  root: Schema | undefined,
  resolve: (node: Schema | undefined) => Schema | undefined,
): [string, string][] {
  const found: [string, string][] = [];
  const walk = (node: Schema | undefined, pointer: string, depth: number) => {
    const name = refName(node);
    if (name) found.push([pointer, name]);
    if (depth >= EMBED_DEPTH) return;
    for (const [key, child] of Object.entries<Schema>(resolve(node)?.properties ?? {}))
      walk(child, `${pointer}/${key}`, depth + 1);
  };
  walk(root, '', 0);
  return found;
}
