"""Schemathesis hooks for scripts/contract-test.sh.

Idempotency keys. A well-formed Idempotency-Key is replaced by a fresh one on every request, as a
real client sends a new key per new request. Otherwise the fuzzer reuses keys across different
bodies (a correct 422) and replays (a correct replay of a since-deleted resource), which are state,
not schema. Malformed keys are left as generated, so their 400 is still exercised; key reuse itself
is covered by test/e2e/idempotency.e2e-spec.ts.

The stateful phase goes from `GET /api/v1/me` to a list, the list's first record and what lies under
it, or from a create to the record it made. When it starts, records of every kind are seeded again
(scripts/contract-seed.mjs): a list shows the newest first, and the other phases have made many
records with nothing under them since the first seeding. Its valid requests are made to reach
records, as a client following the links would; the other phases fuzz what is left out here:
- every request acts in the account's default platform project, where the seeded records are: a
  link carries the project along only from a request that named one, and the header is otherwise
  drawn at random (404, as an unknown project is);
- a list is asked for its first page: the optional filters and offsets it would draw at random
  (`skip=92264`, `status=failed`) leave no first record to follow;
- a body names content projects by `projectIds` with a seeded one (a random id names none: 400),
  so that the lists of clients and channels link on to a project; and a payment names no
  `reciver`, which no link gives it;
- a content project's `channelId`, when the body repeats it, is the path's (else 400);
- a card is one of the designated test numbers, with a future expiry and a CVC of its brand's
  length (docs/finance.md); a payment is in whole US dollars (docs/finance.md, Payments: decimals beyond
  the currency's and unknown currencies are 400). A schema states the form, not these.
Invalid requests (negative data) are left as generated.
"""
import json
import os
import subprocess
import uuid

import schemathesis
from schemathesis.generation import GenerationMode
from schemathesis.generation.meta import TestPhase

IDEMPOTENCY_HEADER = "idempotency-key"
PROJECT_HEADER = "x-project-id"
BASE_URL = os.environ.get("CONTRACT_BASE_URL")
TOKEN = os.environ.get("CONTRACT_TOKEN")
# A Visa test card: a 3-digit CVC.
TEST_CARD = {"cardNumber": "4242 4242 4242 4242", "expMonth": "12", "expYear": "2035", "cvc": "123"}
# What the stateful phase seeded: the default platform project and content projects in it.
seeded = None


def _well_formed(value):
    return isinstance(value, str) and 1 <= len(value) <= 255 and all(0x20 <= ord(ch) <= 0x7E for ch in value)


def _meta(case, name):
    return getattr(getattr(case, "meta", None), name, None)


def _operation_id(case):
    raw = getattr(getattr(case.operation, "definition", None), "raw", None)
    return raw.get("operationId") if isinstance(raw, dict) else None


def _seed():
    if not (BASE_URL and TOKEN):
        raise RuntimeError("contract hooks: CONTRACT_BASE_URL and CONTRACT_TOKEN must be set")
    run = subprocess.run(["node", "scripts/contract-seed.mjs", BASE_URL, TOKEN], check=True, capture_output=True, text=True)
    return json.loads(run.stdout)


def _reach_records(case):
    global seeded
    if seeded is None:
        seeded = _seed()
    if any(parameter.name.lower() == PROJECT_HEADER for parameter in case.operation.headers):
        headers = {name: value for name, value in (case.headers or {}).items() if name.lower() != PROJECT_HEADER}
        case.headers = {**headers, "X-Project-Id": seeded["project"]}
    if case.method.upper() == "GET" and case.query:
        kept = {parameter.name for parameter in case.operation.query if parameter.is_required} | {"limit"}
        case.query = {name: value for name, value in case.query.items() if name in kept}
    if isinstance(case.body, dict):
        if "projectIds" in case.body:
            case.body["projectIds"] = seeded["contentProjects"][:1]
        case.body.pop("reciver", None)
        if "channelId" in case.body and "channelId" in (case.path_parameters or {}):
            case.body["channelId"] = case.path_parameters["channelId"]
        operation = _operation_id(case)
        if operation == "createCard":
            case.body.update(TEST_CARD)
        if operation == "createPayment" and isinstance(case.body.get("amount"), (int, float)):
            case.body.update(amount=max(1, min(int(case.body["amount"]), 99_999_999)), currency="usd")


def _fresh_idempotency_key(case):
    # Coverage cases about a header (missing, malformed) are built on purpose: leave them alone.
    data = getattr(_meta(case, "phase"), "data", None)
    if str(getattr(data, "parameter_location", "")).lower().endswith("header"):
        return
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == IDEMPOTENCY_HEADER and _well_formed(headers[name]):
            headers[name] = str(uuid.uuid4())


@schemathesis.hook
def before_call(context, case, **kwargs):
    if getattr(_meta(case, "phase"), "name", None) == TestPhase.STATEFUL and getattr(_meta(case, "generation"), "mode", None) == GenerationMode.POSITIVE:
        _reach_records(case)
    _fresh_idempotency_key(case)
