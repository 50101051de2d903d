"""An SD-JWT VC issued and presented by the IETF reference implementation (PyPI sd-jwt), for the
interop tests: an issuer PKI made with cryptography (a root and an issuer certificate naming
issuer.example), a PID-like credential with selectively disclosable claims, decoys and cnf, and a
presentation with a Key Binding JWT for the given audience and nonce.

Input (JSON on stdin): {"nonce", "aud", "vct", "disclose": {...claims_to_disclose...}}.
Output (JSON): {"presentation", "root_pem"}.
"""
import base64
import datetime
import json
import sys
import time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from jwcrypto.jwk import JWK
from sd_jwt.common import SDObj
from sd_jwt.holder import SDJWTHolder
from sd_jwt.issuer import SDJWTIssuer

request = json.load(sys.stdin)
now = datetime.datetime.now(datetime.timezone.utc)

root_key = ec.generate_private_key(ec.SECP256R1())
root_name = x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "EU"), x509.NameAttribute(NameOID.COMMON_NAME, "Interop PID Root")])
root = (
    x509.CertificateBuilder()
    .subject_name(root_name).issuer_name(root_name).public_key(root_key.public_key())
    .serial_number(x509.random_serial_number())
    .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
    .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
    .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    .add_extension(x509.SubjectKeyIdentifier.from_public_key(root_key.public_key()), critical=False)
    .sign(root_key, hashes.SHA256())
)
issuer_key = ec.generate_private_key(ec.SECP256R1())
issuer_cert = (
    x509.CertificateBuilder()
    .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Interop PID Issuer")])).issuer_name(root_name)
    .public_key(issuer_key.public_key()).serial_number(x509.random_serial_number())
    .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=20))
    .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
    .add_extension(x509.SubjectAlternativeName([x509.DNSName("issuer.example")]), critical=False)
    .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(root_key.public_key()), critical=False)
    .sign(root_key, hashes.SHA256())
)

issuer_jwk = JWK.from_pem(issuer_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
holder_jwk = JWK.generate(kty="EC", crv="P-256")
x5c = [base64.b64encode(issuer_cert.public_bytes(serialization.Encoding.DER)).decode()]
seconds = int(time.time())
claims = {
    "iss": "https://issuer.example",
    "vct": request["vct"],
    "iat": seconds - 60,
    "exp": seconds + 86400,
    SDObj("given_name"): "Erika",
    SDObj("family_name"): "Mustermann",
    SDObj("birthdate"): "1963-08-12",
    SDObj("address"): {SDObj("locality"): "Berlin", "country": "DE"},
    "age_equal_or_over": {SDObj("18"): True, SDObj("21"): True},
    "nationalities": [SDObj("DE"), SDObj("FR")],
}
issuer = SDJWTIssuer(
    claims, issuer_jwk, holder_jwk, sign_alg="ES256", add_decoy_claims=True,
    extra_header_parameters={"typ": "dc+sd-jwt", "x5c": x5c},
)
holder = SDJWTHolder(issuer.sd_jwt_issuance)
holder.create_presentation(request["disclose"], request["nonce"], request["aud"], holder_jwk, "ES256")
print(json.dumps({"presentation": holder.sd_jwt_presentation, "root_pem": root.public_bytes(serialization.Encoding.PEM).decode()}))
