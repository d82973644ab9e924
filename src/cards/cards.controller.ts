import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { CustomerEnvelope } from '../customers/dto/customer.response';
import { CardsService } from './cards.service';
import { CardDeletedResponse, CardEnvelope, CardListResponse } from './dto/card.response';
import { CreateCardDto } from './dto/create-card.dto';
import { ListCardsQuery } from './dto/list-cards.query';
import { UpdateCardDto } from './dto/update-card.dto';
import { Tenant } from '../tenancy/tenancy.decorators';
import type { TenantScope } from '../tenancy/tenant-scope';
import { Idempotent } from '../idempotency/idempotent.decorator';

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const CARDS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session', 'secretKey'],
  scope: 'project',
  api: 'cards',
  assurance: 'accountMfa',
};

@ApiTags('cards')
@Controller('v1/cards')
export class CardsController {
  constructor(private readonly cards: CardsService) {}

  // Without a customer the card creates one: a change in the customers API as well.
  @Access({ ...CARDS_ACCESS, alsoApis: [{ api: 'customers', when: (body) => body.customer == null }] })
  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a card (test mode)',
    description:
      'Also answers on `/v1/cards/`. Test mode only: `cardNumber` must be a designated test card number (for example ' +
      '4242424242424242, or 378282246310005 for American Express); a real card is refused with 400. `cardNumber`, ' +
      '`expMonth`, `expYear` and `cvc` are required (the original interface marks them optional, but a card cannot exist ' +
      "without them). Without `customer` a new customer (email null) is created and returned as the card's `customer`: " +
      'a change in the customers API as well, so the project must have it enabled and an API key needs its scope (403 ' +
      'otherwise); ' +
      'an unknown `customer` is 400. A customer without a default card gets this card as its default. ' +
      'The number and the CVC are never stored or returned.',
  })
  @ApiCreatedResponse({ type: CardEnvelope, description: 'The saved card' })
  @ApiErrorResponses(400, 401, 403, 413, 415, 500, 503)
  async createCard(@Tenant() scope: TenantScope, @Body() dto: CreateCardDto): Promise<CardEnvelope> {
    return { data: await this.cards.create(scope, dto) };
  }

  @Access(CARDS_ACCESS)
  @Get()
  @ApiOperation({
    summary: "List a customer's cards",
    description:
      '`customer` is required (400 without it, 404 for an unknown customer). Newest first, `limit` per page (default 20, ' +
      'max 100); pass the last id seen as `startingAfter` for the next page.',
  })
  @ApiOkResponse({ type: CardListResponse, description: "One page of the customer's cards" })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  listCards(@Tenant() scope: TenantScope, @Query() query: ListCardsQuery): Promise<CardListResponse> {
    return this.cards.list(scope, query);
  }

  @Access(CARDS_ACCESS)
  @Get(':id')
  @ApiOperation({ summary: 'Get a card' })
  @ApiOkResponse({ type: CardEnvelope, description: 'The card' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async getCard(@Tenant() scope: TenantScope, @Param('id', ParseObjectIdPipe) id: string): Promise<CardEnvelope> {
    return { data: await this.cards.get(scope, id) };
  }

  @Access(CARDS_ACCESS)
  @Post(':id')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Update a card',
    description:
      'Only `expMonth` and `expYear` can change; the resulting expiry must not be in the past. 409 when another request ' +
      'changed the expiry at the same moment (retry).',
  })
  @ApiOkResponse({ type: CardEnvelope, description: 'The updated card' })
  @ApiErrorResponses(400, 401, 404, 409, 413, 415, 500, 503)
  async updateCard(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
    @Body() dto: UpdateCardDto,
  ): Promise<CardEnvelope> {
    return { data: await this.cards.update(scope, id, dto) };
  }

  @Access({ ...CARDS_ACCESS, alsoApis: ['customers'] })
  @Post(':id/default')
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Make a card its customer's default",
    description:
      "Sets the customer's `defaultMethod` to this card and returns the customer. Takes no body. A change and an answer of the " +
      'customers API as well: the project must have it enabled and an API key needs both scopes (403 otherwise).',
  })
  @ApiOkResponse({ type: CustomerEnvelope, description: 'The customer, with this card as defaultMethod' })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async setDefaultCard(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<CustomerEnvelope> {
    return { data: await this.cards.setDefault(scope, id) };
  }

  @Access(CARDS_ACCESS)
  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a card',
    description: "Removes the card. When it was the customer's default, the customer's `defaultMethod` becomes null.",
  })
  @ApiOkResponse({ type: CardDeletedResponse, description: 'The card is gone' })
  @ApiErrorResponses(400, 401, 404, 500, 503)
  async deleteCard(
    @Tenant() scope: TenantScope,
    @Param('id', ParseObjectIdPipe) id: string,
  ): Promise<CardDeletedResponse> {
    await this.cards.delete(scope, id);
    return { id, deleted: true, message: 'Card deleted' };
  }
}
