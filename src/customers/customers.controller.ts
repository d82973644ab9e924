import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FinanceListQuery } from '../common/paging/finance-list.query';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { CustomersService } from './customers.service';
import { CreateCustomerDto } from './dto/create-customer.dto';
import {
  CustomerCreatedEnvelope,
  CustomerDeletedResponse,
  CustomerEnvelope,
  CustomerListResponse,
} from './dto/customer.response';
import { UpdateCustomerDto } from './dto/update-customer.dto';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Idempotent } from '../idempotency/idempotent.decorator';

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const CUSTOMERS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'customers',
  assurance: 'accountMfa',
};

@ApiTags('customers')
@Controller('v1/customers')
export class CustomersController {
  constructor(private readonly customers: CustomersService) {}

  @Access(CUSTOMERS_ACCESS)
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a customer',
    description:
      'Also answers on `/v1/customers/`. Only `email` is required. `SocialNumber` is write-only: stored, never returned. ' +
      '`defaultMethod` must be null or left out (400 otherwise): a new customer has no cards, and its first card becomes the default.',
  })
  @ApiCreatedResponse({ type: CustomerCreatedEnvelope, description: 'The new customer' })
  @ApiErrorResponses(400, 401, 413, 415, 500, 503)
  async createCustomer(@Tenant() scope: TenantScope, @Body() dto: CreateCustomerDto): Promise<CustomerCreatedEnvelope> {
    return { data: await this.customers.create(scope, dto) };
  }

  @Access(CUSTOMERS_ACCESS)
  @Get()
  @ApiOperation({
    summary: 'List customers',
    description:
      'Newest first, `limit` per page (default 20, max 100); pass the last id seen as `startingAfter` for the next page.',
  })
  @ApiOkResponse({ type: CustomerListResponse, description: 'One page of customers' })
  @ApiErrorResponses(400, 401, 500, 503)
  listCustomers(@Tenant() scope: TenantScope, @Query() query: FinanceListQuery): Promise<CustomerListResponse> {
    return this.customers.list(scope, query);
  }

  @Access(CUSTOMERS_ACCESS)
  @Get(':id')
  @ApiOperation({
    summary: 'Get a customer',
    description: 'Returns the customer with `phone` and `Taxable`; never `SocialNumber`.',
  })
  @ApiOkResponse({ type: CustomerEnvelope, description: 'The customer' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async getCustomer(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<CustomerEnvelope> {
    return { data: await this.customers.get(scope, id) };
  }

  @Access(CUSTOMERS_ACCESS)
  @Post(':id')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Update a customer',
    description:
      'Partial update: any subset of the create fields, `email` included. `defaultMethod` must be the id of one of ' +
      "this customer's cards (400 otherwise), or null to clear it.",
  })
  @ApiOkResponse({ type: CustomerEnvelope, description: 'The updated customer' })
  @ApiErrorResponses(400, 401, 404, 413, 415, 500, 503)
  async updateCustomer(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: UpdateCustomerDto,
  ): Promise<CustomerEnvelope> {
    return { data: await this.customers.update(scope, id, dto) };
  }

  @Access({ ...CUSTOMERS_ACCESS, roles: ['admin'] })
  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a customer',
    description:
      'Admin only. Permanently removes the customer and its cards; this cannot be undone. Payments that name the customer are kept as financial records.',
  })
  @ApiOkResponse({ type: CustomerDeletedResponse, description: 'The customer is gone' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async deleteCustomer(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<CustomerDeletedResponse> {
    await this.customers.delete(scope, id);
    return { id, deleted: true, message: 'Customer deleted' };
  }
}
