import { AppError, ErrorCode } from '@kw/platform-errors';

/** Errors of subscription billing (docs/billing.md, docs/errors.md). */
export const BillingErrorCode = {
  BILLING_NOT_CONFIGURED: 'BILLING_NOT_CONFIGURED',
  BILLING_SIGNATURE_INVALID: 'BILLING_SIGNATURE_INVALID',
  NO_BILLING_CUSTOMER: 'NO_BILLING_CUSTOMER',
  SUBSCRIPTION_EXISTS: 'SUBSCRIPTION_EXISTS',
} as const;

export const billingNotConfigured = (): AppError =>
  new AppError({
    status: 409,
    code: BillingErrorCode.BILLING_NOT_CONFIGURED,
    message: 'This deployment has no billing provider (BILLING_PROVIDER)',
  });

export const billingSignatureInvalid = (): AppError =>
  new AppError({
    status: 400,
    code: BillingErrorCode.BILLING_SIGNATURE_INVALID,
    message: "The webhook's signature is missing, does not match its body, or is too old",
  });

export const noBillingCustomer = (): AppError =>
  new AppError({
    status: 409,
    code: BillingErrorCode.NO_BILLING_CUSTOMER,
    message: 'You have no customer account at the billing provider yet: start a checkout first',
  });

export const subscriptionExists = (): AppError =>
  new AppError({
    status: 409,
    code: BillingErrorCode.SUBSCRIPTION_EXISTS,
    message: 'You have a subscription already: change or cancel it in the customer portal',
  });

/** The provider failed or refused; what it said is in the log, never in the answer. */
export const billingUpstreamError = (): AppError =>
  new AppError({ status: 502, code: ErrorCode.UPSTREAM_ERROR, message: 'The billing provider failed' });
