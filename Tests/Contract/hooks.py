# schemathesis hooks for scripts/api-contract (loaded through SCHEMATHESIS_HOOKS=hooks).
#
# What a generated request cannot know about this deployment, so that generated sequences reach
# the verification code instead of ending in a 400 at the first step:
# - POST /v1/web/requests takes only the origins `serve --web-origin` names (scripts/api-contract
#   configures https://shop.example): a generated origin the schema allows is replaced by it; every
#   other field, and every origin the schema refuses, is sent as generated.
# - POST /v1/identity/requests has an optional `merchantId`, which schemathesis' dependency analysis
#   takes for a reference to a "Merchant" resource no operation creates, and then never starts a
#   stateful sequence there. It is an override of the configured merchant identifier, not a
#   reference, so that inferred input is dropped and the operation is a root like createWebRequest.
# - Idempotency-Key: generated keys repeat across generated bodies (the shortest valid key most of
#   all), which the store rightly answers with 422; a valid generated key is made unique per request,
#   so bodies reach the verifiers. Keys the pattern refuses are sent as generated (and must be 400).
#   Retries with one key, 409 and 422 are tested in IdempotencyRouteTests and CrashRetryTests.
import os
import re
import uuid

import jsonschema
import schemathesis
import yaml
from schemathesis.specs.openapi import analysis as _analysis

WEB_ORIGIN = "https://shop.example"


def _analyze(schema):
    graph = _analyze_schema(schema)
    node = graph.operations.get("POST /v1/identity/requests")
    if node is not None:
        node.inputs = [slot for slot in node.inputs if slot.resource.name != "Merchant"]
    return graph


# The dependency analysis of the pinned schemathesis (4.32.5), wrapped where the schema's analysis
# calls it (reading `schema.analysis` from a hook, before the run has its base URL, breaks the run).
_analyze_schema = _analysis.dependencies.analyze
_analysis.dependencies.analyze = _analyze


def _origin_schema():
    document = yaml.safe_load(open(os.path.join(os.path.dirname(__file__), "../../Sources/VerifierServer/Resources/openapi.yaml")))
    body = document["paths"]["/v1/web/requests"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    return jsonschema.Draft202012Validator(body["properties"]["origin"])


_ORIGIN = _origin_schema()


@schemathesis.hook
def map_body(ctx, body):
    # Only an origin the schema allows is swapped for the configured one: a generated origin that
    # violates the schema (a negative case) is sent as generated, and must still be a 400.
    operation = ctx.operation
    if operation is not None and operation.path == "/v1/web/requests" and isinstance(body, dict) \
            and "origin" in body and _ORIGIN.is_valid(body["origin"]):
        body["origin"] = WEB_ORIGIN
    return body


_KEY = re.compile(r'^(?:[!-~]{16,255}|"[!#-\[\]-~]{16,255}")$')


@schemathesis.hook
def before_call(ctx, case, kwargs):
    # Every phase's requests pass here (the coverage phase's too, which map hooks do not see).
    headers = case.headers
    if headers and isinstance(headers.get("Idempotency-Key"), str) and _KEY.match(headers["Idempotency-Key"]):
        headers["Idempotency-Key"] = str(uuid.uuid4())
