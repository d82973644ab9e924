import type { Customer } from './customer.schema';
import type { CustomerCreatedData, CustomerResponse } from './dto/customer.response';

/** The create response's fields, ids as strings and dates as ISO strings. The social number is never copied. */
export function toCustomerCreatedData(customer: Customer): CustomerCreatedData {
  return {
    id: String(customer._id),
    email: customer.email ?? null,
    firstName: customer.firstName ?? null,
    lastName: customer.lastName ?? null,
    address: customer.address ?? {},
    country: customer.country ?? null,
    balance: customer.balance ?? 0,
    verified: customer.verified ?? false,
    liveMode: customer.liveMode ?? false,
    createdAt: new Date(customer.createdAt).toISOString(),
    updatedAt: new Date(customer.updatedAt).toISOString(),
    defaultMethod: customer.defaultMethod ?? null,
  };
}

/** A read customer: the create fields plus phone and Taxable. */
export function toCustomerResponse(customer: Customer): CustomerResponse {
  return { ...toCustomerCreatedData(customer), phone: customer.phone ?? null, Taxable: customer.Taxable ?? false };
}
