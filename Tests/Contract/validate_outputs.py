"""Validates accepted answers (which schemathesis cannot produce: it cannot make a response a wallet
signed) against the response schemas of the OpenAPI document, and answers that are not verdicts (the
operators' GET /v1/trust with roots and keys configured) against theirs. The JSON comes from the CLI, which
prints exactly what the service answers for the same input, and from the service itself in the tests
(fixtures signed in code; see ContractSamples.swift). Usage: validate_outputs.py OPENAPI NAME=FILE..."""
import json
import sys

import jsonschema
import yaml

document = yaml.safe_load(open(sys.argv[1]))
failures = 0
for argument in sys.argv[2:]:
    name, path = argument.split("=", 1)
    answer = json.load(open(path))
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(answer))
    # Verification results must be accepted ones; other answers (Trust) carry no verdict.
    is_result = name.endswith("Result")
    if is_result and answer.get("verdict") != "accepted":
        print(f"{path}: expected an accepted answer, got {answer.get('verdict')}")
        failures += 1
    for error in errors:
        print(f"{path} against {name}: {'/'.join(map(str, error.absolute_path))}: {error.message}")
        failures += 1
    if not errors:
        print(f"{path}: {'an accepted answer' if is_result else 'an answer'}, valid against {name}")
sys.exit(1 if failures else 0)
