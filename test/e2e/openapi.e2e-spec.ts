import SwaggerParser from '@apidevtools/swagger-parser';
import { createTestApp, TestApp } from '../support/test-app';
import { createFirstAdmin, signupBody, uniqueEmail } from '../support/auth';

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: any }> };
  responses: Record<string, { links?: Record<string, Link>; content?: Record<string, { schema: any }> }>;
};
type Link = { operationId: string; parameters?: Record<string, string>; requestBody?: Record<string, string> };
/** A call as the links see it: the request's path parameters and headers, and the answer's body. */
type Call = { path: Record<string, string>; headers?: Record<string, string>; response: any };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: any;

  beforeAll(async () => {
    t = await createTestApp();
    document = (await t.http.get('/docs-json')).body;
  });
  afterAll(() => t.close());

  function operations(): { path: string; method: string; operation: Operation }[] {
    return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] })),
    );
  }

  it('is a valid OpenAPI 3 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined();
    expect(document.openapi).toMatch(/^3\./);
  });

  it('declares the bearer and session cookie schemes and requires one of them by default', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'sid' });
    expect(document.security).toEqual([{ bearer: [] }, { session: [] }]);
  });

  it('gives every operation a unique operationId, a success response and its error statuses', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      expect({ path, method, success: statuses.some((s) => /^2\d\d$/.test(s)) }).toEqual({
        path,
        method,
        success: true,
      });
      expect({ path, method, has500: statuses.includes('500') }).toEqual({ path, method, has500: true });
      const isPublic = operation.security?.some((requirement) => Object.keys(requirement).length === 0);
      if (!isPublic) expect({ path, method, has401: statuses.includes('401') }).toEqual({ path, method, has401: true });
    }
  });

  it('documents the auth routes with the exact spec paths', () => {
    expect(document.paths['/api/v1/singup'].post).toBeDefined();
    expect(document.paths['/api/v1/signup'].post).toBeDefined();
    expect(document.paths['/api/v1/login'].post.responses['200']).toBeDefined();
    expect(document.paths['/health'].get.security).toEqual([{}]);
  });

  function operationById(operationId: string) {
    return operations().find(({ operation }) => operation.operationId === operationId)!;
  }

  /** The schema at a JSON pointer of an answer's schema, following `$ref`, a single `allOf` and an array's items. */
  function schemaAt(schema: any, pointer: string): any {
    const resolve = (node: any): any => {
      if (node?.$ref) return resolve(document.components.schemas[node.$ref.split('/').pop()]);
      if (node?.allOf?.length === 1) return resolve(node.allOf[0]);
      // A nullable reference: the schema it names, or null.
      const named = node?.anyOf?.filter((part: any) => part.$ref);
      if (named?.length === 1) return resolve(named[0]);
      return node;
    };
    return pointer
      .split('/')
      .slice(1)
      .reduce(
        (node, key) =>
          /^\d+$/.test(key) && resolve(node)?.type === 'array' ? resolve(node).items : resolve(node)?.properties?.[key],
        schema,
      );
  }

  function links(): {
    source: string;
    status: string;
    name: string;
    link: Link;
    path: string;
    operation: Operation;
    response: any;
  }[] {
    return operations().flatMap(({ path, operation }) =>
      Object.entries(operation.responses).flatMap(([status, response]) =>
        Object.entries(response.links ?? {}).map(([name, link]) => ({
          source: operation.operationId!,
          status,
          name,
          link,
          path,
          operation,
          response,
        })),
      ),
    );
  }

  it('every link names an operation, parameters it takes and values its source has', () => {
    expect(links().length).toBeGreaterThan(0);
    for (const { source, name, link, path, operation, response } of links()) {
      const target = operationById(link.operationId);
      expect({ source, name, target: Boolean(target) }).toEqual({ source, name, target: true });
      const expressions = Object.entries({ ...link.parameters });
      for (const [parameter] of expressions) {
        const [location, parameterName] = parameter.includes('.') ? parameter.split('.') : [undefined, parameter];
        const known = target.operation.parameters?.some(
          (p) => p.name === parameterName && (!location || p.in === location),
        );
        expect({ source, name, parameter, known }).toEqual({ source, name, parameter, known: true });
      }
      const targetBody = target.operation.requestBody?.content['application/json']?.schema;
      for (const field of Object.keys(link.requestBody ?? {})) {
        expect({ source, name, field, known: Boolean(schemaAt(targetBody, `/${field}`)) }).toEqual({
          source,
          name,
          field,
          known: true,
        });
      }
      for (const expression of [...expressions.map(([, value]) => value), ...Object.values(link.requestBody ?? {})]) {
        const body = /^\$response\.body#(\/.*)$/.exec(expression);
        const requestPath = /^\$request\.path\.(\w+)$/.exec(expression);
        const requestHeader = /^\$request\.header\.([\w-]+)$/.exec(expression);
        expect({ source, name, expression, form: Boolean(body || requestPath || requestHeader) }).toEqual({
          source,
          name,
          expression,
          form: true,
        });
        if (requestHeader) {
          const sent = operation.parameters?.some((p) => p.in === 'header' && p.name === requestHeader[1]);
          expect({ source, name, expression, sent }).toEqual({ source, name, expression, sent: true });
        }
        if (body) {
          const resolved = Boolean(schemaAt(response.content?.['application/json']?.schema, body[1]));
          expect({ source, name, expression, resolved }).toEqual({ source, name, expression, resolved: true });
        }
        if (requestPath)
          expect({ source, name, expression, inPath: path.includes(`{${requestPath[1]}}`) }).toEqual({
            source,
            name,
            expression,
            inPath: true,
          });
      }
    }
  });

  it('links every create to the operations on its record, and to those that name the record elsewhere', () => {
    const targets = (operationId: string, status = '201') =>
      Object.values(operationById(operationId).operation.responses[status].links ?? {}).map((link) => link.operationId);
    expect(targets('createCustomer')).toEqual(
      expect.arrayContaining([
        'getCustomer',
        'updateCustomer',
        'deleteCustomer',
        'createCard',
        'listCards',
        'createPayment',
      ]),
    );
    expect(targets('createCard')).toEqual(
      expect.arrayContaining(['getCard', 'updateCard', 'deleteCard', 'setDefaultCard']),
    );
    expect(targets('createPayment')).toEqual(expect.arrayContaining(['getPayment', 'confirmPayment', 'refundPayment']));
    expect(targets('createEndpoint')).toEqual(
      expect.arrayContaining(['getEndpoint', 'updateEndpoint', 'deleteEndpoint', 'listDeliveries']),
    );
    expect(targets('createInvitation')).toEqual(expect.arrayContaining(['revokeInvitation', 'signup']));
    expect(targets('getCurrentUser', '200')).toEqual(
      expect.arrayContaining(['getAccount', 'createInvitation', 'listMembers']),
    );
    expect(targets('signup')).toEqual(
      expect.arrayContaining(['changeMemberRole', 'removeMember', 'transferOwnership']),
    );
    // A restore follows the soft delete, not the create: a new record has nothing to restore.
    expect(targets('createCollection')).not.toContain('restoreCollection');
    expect(targets('softDeleteCollection', '200')).toEqual(['restoreCollection']);
    expect(targets('createClient')).not.toContain('restoreClient');
    expect(targets('softDeleteClient', '200')).toEqual(['restoreClient']);
  });

  it("links the caller's default project to every create of the data APIs, by X-Project-Id", () => {
    const me = operationById('getCurrentUser').operation.responses['200'].links!;
    for (const operationId of ['createCustomer', 'createCollection', 'createClient', 'createEndpoint']) {
      const link = Object.values(me).find((candidate) => candidate.operationId === operationId);
      expect({ operationId, parameters: link?.parameters }).toEqual({
        operationId,
        parameters: { 'header.X-Project-Id': '$response.body#/data/account/defaultProjectId' },
      });
    }
  });

  it("links the default project to the data APIs' lists, and a list's first record to the operations that read or change it", () => {
    const me = operationById('getCurrentUser').operation.responses['200'].links!;
    for (const operationId of ['listCustomers', 'listClients', 'listPayments', 'listEndpoints']) {
      expect(Object.values(me).some((link) => link.operationId === operationId)).toBe(true);
    }
    // A list needing another record (a customer's cards) is reached from that record instead.
    expect(Object.values(me).some((link) => link.operationId === 'listCards')).toBe(false);
    const targets = (operationId: string) =>
      Object.values(operationById(operationId).operation.responses['200'].links ?? {});
    expect(targets('listCustomers').find((link) => link.operationId === 'getCustomer')?.parameters).toEqual({
      'header.X-Project-Id': '$request.header.X-Project-Id',
      id: '$response.body#/data/0/id',
    });
    expect(targets('listClients').map((link) => link.operationId)).toEqual(
      expect.arrayContaining(['getClient', 'updateClient', 'listClientChannels']),
    );
    // The first record is every link's: none removes it.
    expect(targets('listClients').map((link) => link.operationId)).not.toEqual(
      expect.arrayContaining(['softDeleteClient']),
    );
    expect(targets('listClients').map((link) => link.operationId)).not.toEqual(
      expect.arrayContaining(['hardDeleteClient']),
    );
    expect(targets('listClientChannels').map((link) => link.operationId)).toEqual(
      expect.arrayContaining(['getChannel', 'updateChannel']),
    );
    // Clients and channels name content projects: the first record's first one, never to its delete.
    for (const list of ['listClients', 'listClientChannels']) {
      expect(targets(list).find((link) => link.operationId === 'getProject')?.parameters).toEqual({
        'header.X-Project-Id': '$request.header.X-Project-Id',
        projectId: '$response.body#/0/projectIds/0',
      });
      expect(targets(list).map((link) => link.operationId)).not.toContain('deleteProject');
    }
    expect(targets('listDeliveries').find((link) => link.operationId === 'retryDelivery')?.parameters).toMatchObject({
      id: '$request.path.id',
      deliveryId: '$response.body#/data/0/id',
    });
  });

  it('names the project onward from a create, but not to a call a link fills entirely on a record that can vanish', () => {
    const linkTo = (operationId: string, target: string) =>
      Object.values(operationById(operationId).operation.responses['201'].links ?? {}).find(
        (link) => link.operationId === target,
      )!;
    expect(linkTo('createCustomer', 'getCustomer').parameters).toHaveProperty(
      ['header.X-Project-Id'],
      '$request.header.X-Project-Id',
    );
    // A client can be soft deleted, and a card goes with its customer.
    expect(linkTo('createClient', 'updateClient').parameters).not.toHaveProperty(['header.X-Project-Id']);
    expect(linkTo('createCard', 'getCard').parameters).not.toHaveProperty(['header.X-Project-Id']);
    // Reading a client takes `includeDeleted` too, which no link fills.
    expect(linkTo('createClient', 'getClient').parameters).toHaveProperty(
      ['header.X-Project-Id'],
      '$request.header.X-Project-Id',
    );
  });

  describe('following the links with real records', () => {
    /** The request a link makes from a call: path parameters, query and body fields it fills. */
    function follow(call: Call, link: Link) {
      const evaluate = (expression: string) => {
        const body = /^\$response\.body#(\/.*)$/.exec(expression);
        if (body)
          return body[1]
            .split('/')
            .slice(1)
            .reduce((value, key) => value?.[key], call.response);
        const header = /^\$request\.header\.([\w-]+)$/.exec(expression);
        if (header) return call.headers?.[header[1]];
        return call.path[/^\$request\.path\.(\w+)$/.exec(expression)![1]];
      };
      const { path: template } = operationById(link.operationId);
      const path: Record<string, string> = {};
      const query: Record<string, string> = {};
      const headers: Record<string, string> = {};
      for (const [parameter, expression] of Object.entries(link.parameters ?? {})) {
        const value = evaluate(expression);
        // A request that named no project leaves the next one to the default project too.
        if (value === undefined && expression.startsWith('$request.header.')) continue;
        expect({ parameter, expression, value: typeof value }).toEqual({ parameter, expression, value: 'string' });
        if (parameter.startsWith('query.')) query[parameter.slice('query.'.length)] = value;
        else if (parameter.startsWith('header.')) headers[parameter.slice('header.'.length)] = value;
        else path[parameter.replace(/^path\./, '')] = value;
      }
      const body = Object.fromEntries(
        Object.entries(link.requestBody ?? {}).map(([field, expression]) => [field, evaluate(expression)]),
      );
      const search = new URLSearchParams(query).toString();
      const url = template.replace(/\{(\w+)\}/g, (_, name: string) => path[name]) + (search ? `?${search}` : '');
      return { url, path, body, headers };
    }
    const linkOf = (operationId: string, status: string, name: string) =>
      operationById(operationId).operation.responses[status].links![name];

    it('a customer: its card is created, listed and read through the links', async () => {
      const admin = await createFirstAdmin(t.http);
      const customer = await t.http.post('/v1/customers', { email: 'linked@example.com' }, { token: admin.token });
      expect(customer.status).toBe(201);
      const customerCall = { path: {}, response: customer.body };
      const create = follow(customerCall, linkOf('createCustomer', '201', 'CreateCard'));
      const cardBody = {
        cardNumber: '4242424242424242',
        expMonth: '12',
        expYear: String(new Date().getUTCFullYear() + 3),
        cvc: '123',
      };
      const card = await t.http.post(create.url, { ...create.body, ...cardBody }, { token: admin.token });
      expect(card.status).toBe(201);
      const list = await t.http.get(follow(customerCall, linkOf('createCustomer', '201', 'ListCards')).url, {
        token: admin.token,
      });
      expect(list.status).toBe(200);
      expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([card.body.data.id]);
      const get = await t.http.get(
        follow({ path: {}, response: card.body }, linkOf('createCard', '201', 'GetCard')).url,
        { token: admin.token },
      );
      expect(get.status).toBe(200);
      expect(get.body.data.customer).toBe(customer.body.data.id);
    });

    it('a customer made in the project me names is read in that project', async () => {
      const admin = await createFirstAdmin(t.http);
      const me = await t.http.get('/api/v1/me', { token: admin.token });
      const create = follow({ path: {}, response: me.body }, linkOf('getCurrentUser', '200', 'CreateCustomer'));
      expect(create.headers['X-Project-Id']).toBe(me.body.data.account.defaultProjectId);
      const customer = await t.http.post(
        create.url,
        { email: 'in-project@example.com' },
        { token: admin.token, headers: create.headers },
      );
      expect(customer.status).toBe(201);
      const get = follow(
        { path: {}, headers: create.headers, response: customer.body },
        linkOf('createCustomer', '201', 'GetCustomer'),
      );
      expect(get.headers['X-Project-Id']).toBe(me.body.data.account.defaultProjectId);
      const read = await t.http.get(get.url, { token: admin.token, headers: get.headers });
      expect(read.status).toBe(200);
      expect(read.body.data.email).toBe('in-project@example.com');
    });

    it("a customer listed in the project me names is read through the list's link, in that project", async () => {
      const admin = await createFirstAdmin(t.http);
      const made = await t.http.post('/v1/customers', { email: 'listed@example.com' }, { token: admin.token });
      expect(made.status).toBe(201);
      const me = await t.http.get('/api/v1/me', { token: admin.token });
      const listRequest = follow({ path: {}, response: me.body }, linkOf('getCurrentUser', '200', 'ListCustomers'));
      const list = await t.http.get(listRequest.url, { token: admin.token, headers: listRequest.headers });
      expect(list.status).toBe(200);
      const get = follow(
        { path: {}, headers: listRequest.headers, response: list.body },
        linkOf('listCustomers', '200', 'GetCustomer'),
      );
      expect(get.headers['X-Project-Id']).toBe(me.body.data.account.defaultProjectId);
      const read = await t.http.get(get.url, { token: admin.token, headers: get.headers });
      expect(read.status).toBe(200);
      expect(read.body.data.id).toBe(list.body.data[0].id);
    });

    it("a client's content project is read through the clients list's link", async () => {
      const admin = await createFirstAdmin(t.http);
      const as = { token: admin.token };
      const client = await t.http.post('/clients', { name: 'Linked Media', email: 'linked-media@example.com' }, as);
      const channel = await t.http.post(
        '/channels',
        {
          clientId: client.body.id,
          name: 'Linked',
          username: `linked-${Date.now()}`,
          avatarUrl: 'https://cdn.example.com/a.png',
          role: 'creator',
        },
        as,
      );
      const project = await t.http.post(
        `/channels/${channel.body.id}/projects`,
        { primaryTitle: 'Linked Hours', projectTypeId: 'album' },
        as,
      );
      expect((await t.http.put(`/clients/${client.body.id}`, { projectIds: [project.body._id] }, as)).status).toBe(200);
      const list = await t.http.get('/clients', as);
      const get = follow({ path: {}, response: list.body }, linkOf('listClients', '200', 'GetProject'));
      const read = await t.http.get(get.url, as);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ _id: project.body._id, primaryTitle: 'Linked Hours' });
    });

    it("an account: from the caller's me to an invitation, the invitee's signup and their membership", async () => {
      const admin = await createFirstAdmin(t.http);
      const me = await t.http.get('/api/v1/me', { token: admin.token });
      const invitationRequest = follow(
        { path: {}, response: me.body },
        linkOf('getCurrentUser', '200', 'CreateInvitation'),
      );
      expect(invitationRequest.path.accountId).toBe(admin.accountId);
      const invitation = await t.http.post(
        invitationRequest.url,
        { email: uniqueEmail('invited'), role: 'developer' },
        { token: admin.token },
      );
      expect(invitation.status).toBe(201);
      const signupRequest = follow(
        { path: invitationRequest.path, response: invitation.body },
        linkOf('createInvitation', '201', 'SignupWithInvitation'),
      );
      const { email: _email, role: _role, ...profile } = signupBody();
      const signup = await t.http.post(signupRequest.url, { ...profile, ...signupRequest.body });
      expect(signup.status).toBe(201);
      const change = follow({ path: {}, response: signup.body }, linkOf('signup', '201', 'ChangeMemberRole'));
      const changed = await t.http.patch(change.url, { role: 'manager' }, { token: admin.token });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({ userId: signup.body.data.user.id, role: 'manager' });
    });
  });

  it('every operation that is not public rejects an anonymous call with 401', async () => {
    const protectedOperations = operations().filter(
      ({ operation }) => !operation.security?.some((requirement) => Object.keys(requirement).length === 0),
    );
    expect(protectedOperations.length).toBeGreaterThan(0);
    for (const { path, method } of protectedOperations) {
      const url = path.replace(/\{[^}]+\}/g, '6650c0ffee0000000000a001');
      const res = await t.http.request(
        method.toUpperCase(),
        url,
        ['post', 'put', 'patch'].includes(method) ? {} : undefined,
      );
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
    }
  });
});
