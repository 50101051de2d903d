"""An independent OpenID4VP wallet side (joserfc + cbor2) for OpenID4VPInteropTests.

Reads one JSON object on stdin:
  {"mode": "transcript", "request": <request object>, "origin": str}
      -> prints the hex of SessionTranscript [null, null, ["OpenID4VPDCAPIHandover",
         SHA-256(CBOR([origin, nonce, jwkThumbprint]))]] computed from the request's nonce and
         its client_metadata.jwks key (RFC 7638 thumbprint by joserfc).
  {"mode": "encrypt", "request": <request object>, "deviceResponse": base64url, "enc": str}
      -> prints {"response": "<JWE>"}: vp_token {<first DCQL credential id>: [deviceResponse]}
         encrypted with ECDH-ES to the request's key, with its kid.
"""
import base64
import hashlib
import json
import sys

import cbor2
from joserfc import jwe
from joserfc.jwk import ECKey


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main():
    args = json.load(sys.stdin)
    request = args["request"]
    jwk = request["client_metadata"]["jwks"]["keys"][0]
    key = ECKey.import_key(jwk)
    if args["mode"] == "transcript":
        thumbprint = b64url_decode(key.thumbprint())
        info = cbor2.dumps([args["origin"], request["nonce"], thumbprint])
        handover = ["OpenID4VPDCAPIHandover", hashlib.sha256(info).digest()]
        print(cbor2.dumps([None, None, handover]).hex())
    elif args["mode"] == "encrypt":
        enc = args.get("enc") or request["client_metadata"]["encrypted_response_enc_values_supported"][0]
        assert enc in request["client_metadata"]["encrypted_response_enc_values_supported"]
        credential_id = request["dcql_query"]["credentials"][0]["id"]
        payload = json.dumps({"vp_token": {credential_id: [args["deviceResponse"]]}}).encode()
        protected = {"alg": jwk["alg"], "enc": enc, "kid": jwk["kid"]}
        token = jwe.encrypt_compact(protected, payload, key, algorithms=[jwk["alg"], enc])
        print(json.dumps({"response": token}))
    else:
        raise SystemExit("unknown mode")


if __name__ == "__main__":
    main()
