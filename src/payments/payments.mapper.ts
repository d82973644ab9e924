import { fromMinorUnits } from '../common/money/money';
import type { PaymentResponse } from './dto/payment.response';
import type { Payment } from './payment.schema';

/** Exactly the contract's payment fields, amounts back in major units. */
export function toPaymentResponse(payment: Payment): PaymentResponse {
  return {
    id: String(payment._id),
    amount: fromMinorUnits(payment.amountMinor, payment.currency),
    currency: payment.currency,
    customer: String(payment.customer),
    reciver: payment.reciver ? String(payment.reciver) : null,
    description: payment.description ?? null,
    status: payment.status,
    failureCode: payment.failureCode ?? null,
    amountRefunded: fromMinorUnits(payment.amountRefundedMinor ?? 0, payment.currency),
    createdAt: new Date(payment.createdAt).toISOString(),
    updatedAt: new Date(payment.updatedAt).toISOString(),
  };
}
