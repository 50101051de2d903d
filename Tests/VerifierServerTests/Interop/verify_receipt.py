"""Verifies verification receipts with an independent JOSE implementation (joserfc) for
ReceiptRouteTests.

Reads one JSON object on stdin:
  {"jwks": {"keys": [...]}, "receipts": ["<compact JWS>", ...]}
and prints one JSON object: {"results": [...]}, one entry per receipt, in order:
  {"ok": true, "kid": str, "payload": <the signed payload>} for a receipt whose ES256 signature
  verifies with the JWKS key of its kid and whose header says typ "wallet-verifier-receipt+jwt";
  {"ok": false, "error": str} for any other.
"""
import json
import sys

from joserfc import jws
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

RECEIPT_TYPE = "wallet-verifier-receipt+jwt"


def registry():
    # The header carries the certificate chain (x5c): more than joserfc's default 512 bytes.
    allowed = JWSRegistry(algorithms=["ES256"])
    allowed.max_header_length = 16384
    return allowed


def verify(receipt, keys):
    signature = jws.deserialize_compact(receipt, keys, registry=registry())
    header = signature.headers()
    if header.get("alg") != "ES256":
        raise ValueError("alg is %r, not ES256" % header.get("alg"))
    if header.get("typ") != RECEIPT_TYPE:
        raise ValueError("typ is %r, not %s" % (header.get("typ"), RECEIPT_TYPE))
    return {"ok": True, "kid": header.get("kid"), "payload": json.loads(signature.payload)}


def main():
    args = json.load(sys.stdin)
    keys = KeySet.import_key_set(args["jwks"])
    results = []
    for receipt in args["receipts"]:
        try:
            results.append(verify(receipt, keys))
        except Exception as error:  # every failure is an answer: the test says which must fail
            results.append({"ok": False, "error": "%s: %s" % (type(error).__name__, error)})
    json.dump({"results": results}, sys.stdout)


if __name__ == "__main__":
    main()
