import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Types } from 'mongoose';
import { createHmac } from 'node:crypto';
import { Page, toPage } from '../common/paging/finance-list.query';
import { isValidObjectId } from '../common/pipes/object-id';
import { RequestValidationException } from '../common/pipes/validation.pipe';
import type { FinanceConfig } from '../config/finance.config';
import { CUSTOMER_NOT_FOUND, CustomersService } from '../customers/customers.service';
import type { PaymentMethodLookup } from '../customers/customers.ports';
import { CustomerResponse } from '../customers/dto/customer.response';
import { Card } from './card.schema';
import { CardsRepository } from './cards.repository';
import { checkExpiry, checkNewCard, isExpired } from './card-validation';
import { toCardResponse } from './cards.mapper';
import { CardResponse } from './dto/card.response';
import { CreateCardDto } from './dto/create-card.dto';
import { ListCardsQuery } from './dto/list-cards.query';
import { UpdateCardDto } from './dto/update-card.dto';
import type { TenantScope } from '../tenancy/tenant-scope';

export const CARD_NOT_FOUND = 'Card not found';

/** What a payment needs to charge a customer: the default card and, for a decline test card, why it fails. */
export interface ChargeableCard {
  cardId: string;
  failureCode: string | null;
}
const UNKNOWN_CUSTOMER = 'customer does not match an existing customer';

/**
 * The saved cards of a platform project. Every method takes the request's scope first: a card or a
 * customer of another project is exactly as absent as one that does not exist.
 */
@Injectable()
export class CardsService implements PaymentMethodLookup {
  private readonly fingerprintKey: string;

  constructor(
    private readonly cards: CardsRepository,
    private readonly customers: CustomersService,
    config: ConfigService,
  ) {
    this.fingerprintKey = config.getOrThrow<FinanceConfig>('finance').cardFingerprintKey;
  }

  /**
   * Checks the card (test number, expiry, CVC), then saves what may be kept of it. Without a
   * customer a blank one is created. A customer without a default card gets this one as default
   * (a conditional update, so concurrent first cards leave exactly one default).
   */
  async create(scope: TenantScope, dto: CreateCardDto): Promise<CardResponse> {
    const { errors, card: checked } = checkNewCard(dto, new Date());
    if (!checked) throw new RequestValidationException(errors);

    let customerId: string;
    if (dto.customer) {
      customerId = dto.customer.toLowerCase();
      if (!(await this.customers.exists(scope, customerId))) throw new BadRequestException(UNKNOWN_CUSTOMER);
    } else {
      customerId = await this.customers.createBlank(scope);
    }

    const created = await this.cards.insert(scope, {
      customer: new Types.ObjectId(customerId),
      brand: checked.card.brand,
      funding: checked.card.funding,
      country: checked.card.country,
      last4: checked.number.slice(-4),
      expMonth: checked.expMonth,
      expYear: checked.expYear,
      fingerprint: this.fingerprint(scope, checked.number),
      failureCode: checked.card.failureCode,
    });
    const cardId = String(created._id);
    const isDefault = await this.customers.setDefaultMethodIfUnset(scope, customerId, cardId);
    if (!isDefault && !(await this.customers.exists(scope, customerId))) {
      // The customer was deleted while this card was being saved: do not leave an orphan behind.
      await this.cards.deleteById(scope, cardId);
      throw new BadRequestException(UNKNOWN_CUSTOMER);
    }
    return toCardResponse(created, isDefault);
  }

  async get(scope: TenantScope, id: string): Promise<CardResponse> {
    const card = await this.findCard(scope, id);
    if (!card) throw new NotFoundException(CARD_NOT_FOUND);
    return toCardResponse(card, await this.isDefault(scope, card));
  }

  /** A customer's cards, newest first, cursor-paged. An unknown customer is 404. */
  async list(scope: TenantScope, query: ListCardsQuery): Promise<Page<CardResponse>> {
    const customerId = query.customer.toLowerCase();
    const customer = await this.customers.findById(scope, customerId);
    if (!customer) throw new NotFoundException(CUSTOMER_NOT_FOUND);
    const rows = await this.cards.pageOfCustomer(scope, customerId, query);
    return toPage(rows, query.limit, (card) => toCardResponse(card, String(card._id) === customer.defaultMethod));
  }

  /**
   * Changes the expiry. The merged month and year are checked, and the write is guarded by the values
   * they were merged with, so two concurrent partial updates cannot combine into an unchecked expiry.
   */
  async update(scope: TenantScope, id: string, dto: UpdateCardDto): Promise<CardResponse> {
    const card = await this.findCard(scope, id);
    if (!card) throw new NotFoundException(CARD_NOT_FOUND);
    if (dto.expMonth === undefined && dto.expYear === undefined)
      return toCardResponse(card, await this.isDefault(scope, card));

    const expiry = checkExpiry(dto.expMonth ?? String(card.expMonth), dto.expYear ?? String(card.expYear), new Date());
    if (!expiry.value) throw new RequestValidationException(expiry.errors);
    const updated = await this.cards.updateExpiryIf(
      scope,
      id,
      { expMonth: card.expMonth, expYear: card.expYear },
      expiry.value,
    );
    if (!updated) {
      if (!(await this.cardExists(scope, id))) throw new NotFoundException(CARD_NOT_FOUND);
      throw new ConflictException('The card was changed by another request: retry');
    }
    return toCardResponse(updated, await this.isDefault(scope, updated));
  }

  /** Removes the card; when it was its customer's default, the customer is left without one. */
  async delete(scope: TenantScope, id: string): Promise<void> {
    const card = await this.findCard(scope, id);
    // Removed by a concurrent delete in between: that delete answers, this one is a 404.
    if (!card || !(await this.cards.deleteById(scope, id))) throw new NotFoundException(CARD_NOT_FOUND);
    await this.customers.clearDefaultMethodIf(scope, String(card.customer), id);
  }

  /** Makes the card its customer's default; returns the customer. */
  async setDefault(scope: TenantScope, id: string): Promise<CustomerResponse> {
    const card = await this.findCard(scope, id);
    if (!card) throw new NotFoundException(CARD_NOT_FOUND);
    const customer = await this.customers.setDefaultMethod(scope, String(card.customer), id);
    if (!customer) throw new NotFoundException(CUSTOMER_NOT_FOUND);
    if (!(await this.cardExists(scope, id))) {
      // Deleted meanwhile: its delete may have run before the default was set, so undo it here.
      await this.customers.clearDefaultMethodIf(scope, String(card.customer), id);
      throw new NotFoundException(CARD_NOT_FOUND);
    }
    return customer;
  }

  /**
   * The customer's default card for a charge, or null when there is none. `failureCode` says why a
   * charge fails: the decline test cards' code, `expired_card` for a card past its expiry, else null.
   */
  async getDefaultCardForCharge(scope: TenantScope, customerId: string): Promise<ChargeableCard | null> {
    const defaultMethod = await this.customers.defaultMethodOf(scope, customerId);
    if (!defaultMethod || !isValidObjectId(defaultMethod)) return null;
    const card = await this.cards.findOfCustomer(scope, defaultMethod, customerId);
    if (!card) return null;
    const failureCode =
      card.failureCode ?? (isExpired(card.expMonth, card.expYear, new Date()) ? 'expired_card' : null);
    return { cardId: String(card._id), failureCode };
  }

  /** Whether this customer owns a card with this id in the scope's project. */
  belongsTo(scope: TenantScope, cardId: string, customerId: string): Promise<boolean> {
    return this.cards.belongsTo(scope, cardId, customerId);
  }

  /** Removes every card of a customer of the scope's project; the number removed. */
  deleteAllOfCustomer(scope: TenantScope, customerId: string): Promise<number> {
    return this.cards.deleteAllOfCustomer(scope, customerId);
  }

  /**
   * Keyed hash of a card number, keyed per account: the account's key is HMAC(finance key, account
   * id), so one number gives one fingerprint in every project of an account and an unrelated one in
   * another account (fingerprints cannot be matched across tenants).
   */
  fingerprint(scope: TenantScope, number: string): string {
    const accountKey = createHmac('sha256', this.fingerprintKey).update(`account:${scope.accountId}`).digest();
    return createHmac('sha256', accountKey).update(number).digest('hex');
  }

  private findCard(scope: TenantScope, id: string): Promise<Card | null> {
    return this.cards.findById(scope, id);
  }

  private cardExists(scope: TenantScope, id: string): Promise<boolean> {
    return this.cards.existsById(scope, id);
  }

  private async isDefault(scope: TenantScope, card: Card): Promise<boolean> {
    return (await this.customers.defaultMethodOf(scope, String(card.customer))) === String(card._id);
  }
}
