"""A short real flow through the Python SDK that openapi-python-client generates from openapi.json
with its default settings: signup, login, a customer, a test card, a payment confirmed at once, a
partial refund, the summary, a second platform project, an API key that reads the customer, its
revocation, and an invitation. Every step asserts what the API answered."""

import os
import subprocess
import sys
import uuid

from platform_service_api_client import AuthenticatedClient, Client
from platform_service_api_client.api.accounts import create_invitation
from platform_service_api_client.api.api_keys import create_api_key, revoke_api_key
from platform_service_api_client.api.auth import get_current_user, login, signup, verify_email
from platform_service_api_client.api.cards import create_card
from platform_service_api_client.api.customers import create_customer, get_customer
from platform_service_api_client.api.payments import create_payment, get_payment_summary, refund_payment
from platform_service_api_client.api.platform_projects import create_platform_project
from platform_service_api_client.models import (
    CreateApiKeyDto,
    CreateCardDto,
    CreateCustomerDto,
    CreateInvitationDto,
    CreateInvitationDtoRole,
    CreatePaymentDto,
    CreatePlatformProjectDto,
    LoginDto,
    PaymentResponseStatus,
    RefundPaymentDto,
    SignupDto,
    SignupDtoRole,
)


def check(condition, what, answer=None):
    if not condition:
        sys.exit(f"sdk flow failed: {what}" + (f"; the answer: {answer.content[:500]!r}" if answer is not None else ""))
    print(f"ok: {what}")


base = os.environ["SDK_BASE_URL"]
email = f"sdk-{uuid.uuid4().hex[:8]}@example.com"
password = "sdk flow password 1"

anonymous = Client(base_url=base)
created = signup.sync_detailed(client=anonymous, body=SignupDto(email=email, first_name="Sdk", last_name="Flow", password=password, role=SignupDtoRole.ADMIN))
check(created.status_code == 201, f"signup answers 201 (got {created.status_code})", created)
# The verification link mailed at signup (without SMTP_URL, a file in the service's DATA_DIR/mail).
verification = subprocess.check_output(["node", "scripts/mail-token.mjs", os.environ["SDK_MAIL_DIR"], email, "/verify-email"], text=True)
verified = verify_email.sync_detailed(client=anonymous, code=verification)
check(verified.status_code == 200, f"the email is verified with the mailed link (got {verified.status_code})", verified)
session = login.sync(client=anonymous, body=LoginDto(email=email, password=password))
check(session is not None and session.access_token, "login gives an access token")

user = AuthenticatedClient(base_url=base, token=session.access_token)
profile = get_current_user.sync(client=user)
check(profile.data.user.email == email, "get_current_user names the signed-up user")
account_id = profile.data.account.id

customer = create_customer.sync(client=user, body=CreateCustomerDto(email=f"buyer-{email}", first_name="Ada"))
check(customer.data.id, "a customer is created")
card = create_card.sync(client=user, body=CreateCardDto(card_number="4242424242424242", cvc="123", exp_month="12", exp_year="2034", customer=customer.data.id))
check(card.data.brand == "visa", "a test card is created for the customer")

payment = create_payment.sync(client=user, body=CreatePaymentDto(amount=25.5, currency="usd", customer=customer.data.id, confirm=True))
check(payment.status == PaymentResponseStatus.SUCCEEDED, f"a confirmed payment succeeds (got {payment.status})")
refunded = refund_payment.sync(client=user, id=payment.id, body=RefundPaymentDto(amount=5))
check(refunded.status == PaymentResponseStatus.PARTIALLY_REFUNDED and refunded.amount_refunded == 5, f"a partial refund is recorded (got {refunded.status})")
summary = get_payment_summary.sync(client=user, currency="usd")
check(summary.currency == "usd" and summary.totals is not None, "the payments summary answers")

project = create_platform_project.sync(client=user, body=CreatePlatformProjectDto(name="SDK second project"))
check(project.data.id, "a second platform project is created")

key = create_api_key.sync(client=user, id=project.data.id, body=CreateApiKeyDto(name="sdk key"))
check(key.data.key.startswith("sk_test_"), "an API key of the second project is created, its secret shown once")
with_key = AuthenticatedClient(base_url=base, token=key.data.key)
own = create_customer.sync_detailed(client=with_key, body=CreateCustomerDto(email=f"grace-{email}", first_name="Grace"))
check(own.status_code == 201, f"the key creates a customer in its own project (got {own.status_code})")
foreign = get_customer.sync_detailed(client=with_key, id=customer.data.id)
check(foreign.status_code == 404, f"the key does not see the default project's customer (got {foreign.status_code})")
revoked = revoke_api_key.sync_detailed(client=user, id=project.data.id, key_id=key.data.id)
check(revoked.status_code == 200, f"the key is revoked (got {revoked.status_code})")
after = get_customer.sync_detailed(client=with_key, id=own.parsed.data.id)
check(after.status_code == 401, f"a revoked key is refused (got {after.status_code})")

invitation = create_invitation.sync(client=user, account_id=account_id, body=CreateInvitationDto(email=f"friend-{email}", role=CreateInvitationDtoRole.DEVELOPER))
check(invitation.data.token, "an invitation is created with its token shown once")
print("sdk flow: every step passed")
