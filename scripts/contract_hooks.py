"""Schemathesis hooks for scripts/contract-test.sh.

A well-formed Idempotency-Key is replaced by a fresh one on every request, as a real client sends a
new key per new request. Otherwise the fuzzer reuses keys across different bodies (a correct 422)
and replays (a correct replay of a since-deleted resource), which are state, not schema. Malformed
keys are left as generated, so their 400 is still exercised; key reuse itself is covered by
test/e2e/idempotency.e2e-spec.ts.
"""
import uuid

import schemathesis

HEADER = "idempotency-key"


def _well_formed(value):
    return isinstance(value, str) and 1 <= len(value) <= 255 and all(0x20 <= ord(ch) <= 0x7E for ch in value)


@schemathesis.hook
def before_call(context, case, **kwargs):
    # Coverage cases about a header (missing, malformed) are built on purpose: leave them alone.
    phase = getattr(getattr(case, "meta", None), "phase", None)
    data = getattr(phase, "data", None)
    if str(getattr(data, "parameter_location", "")).lower().endswith("header"):
        return
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == HEADER and _well_formed(headers[name]):
            headers[name] = str(uuid.uuid4())
