"""The IETF reference implementation of SD-JWT (PyPI sd-jwt, pinned in scripts/test's .venv-interop)
beside wallet-verifier on the same presentation: issues a PID-like SD-JWT VC with an x5c chain,
presents it with a Key Binding JWT, writes it to DIR (presentation.txt, root.pem, params.json) for
`wallet-verifier-bench sdjwt --presentation-dir DIR`, and times the reference verifier on it
(issuer signature with the x5c leaf's key, disclosures, Key Binding JWT). It measures and prints;
it never passes or fails on time.

    .venv-interop/bin/python Benchmarks/Reference/sdjwt_reference.py DIR [SECONDS]
"""
import json
import os
import subprocess
import sys
import time

from cryptography import x509
from jwcrypto.jwk import JWK
from sd_jwt.verifier import SDJWTVerifier

directory = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
here = os.path.dirname(os.path.abspath(__file__))
issuer_script = os.path.join(here, "..", "..", "Tests", "SDJWTVerifierTests", "Interop", "sdjwt_issuer_wallet.py")
params = {
    "nonce": "bench-nonce", "aud": "origin:https://shop.example", "vct": "urn:eudi:pid:1",
    "disclose": {"given_name": True, "family_name": True, "address": {"locality": True}, "age_equal_or_over": {"18": True},
                 "nationalities": [True, False]},
}
issued = json.loads(subprocess.run([sys.executable, issuer_script], input=json.dumps(params), capture_output=True, text=True, check=True).stdout)
os.makedirs(directory, exist_ok=True)
with open(os.path.join(directory, "presentation.txt"), "w") as f:
    f.write(issued["presentation"])
with open(os.path.join(directory, "root.pem"), "w") as f:
    f.write(issued["root_pem"])
with open(os.path.join(directory, "params.json"), "w") as f:
    json.dump({"nonce": params["nonce"], "aud": params["aud"], "vct": params["vct"]}, f)


def issuer_key(issuer, header):
    # The x5c leaf's key, as a verifier of SD-JWT VC takes it (the chain itself is not checked here).
    import base64
    leaf = x509.load_der_x509_certificate(base64.b64decode(header["x5c"][0]))
    return JWK.from_pyca(leaf.public_key())


def verify():
    SDJWTVerifier(issued["presentation"], issuer_key, params["aud"], params["nonce"])


verify()
count, start = 0, time.process_time()
while time.process_time() - start < seconds:
    for _ in range(10):
        verify()
    count += 10
rate = count / (time.process_time() - start)
print(f"PyPI sd-jwt 0.10.4 (the IETF reference implementation): {rate:.0f} verifications/s ({1e6 / rate:.0f} µs each, CPU time), "
      f"{len(issued['presentation'])}-byte presentation written to {directory}")
