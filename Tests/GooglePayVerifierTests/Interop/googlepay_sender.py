"""An independent Google Pay sender: builds ECv2 tokens from Google's published algorithm
("Payment data cryptography for merchants") with Python's `cryptography`, nothing of ours.

Reads {"case": NAME, "now": MILLISECONDS} on stdin; writes {"token", "rootKeys", "merchantKey"}
(the token JSON, Google's key-list JSON with one ECv2 root key, the merchant's PKCS #8 PEM).
Each case other than "valid" makes the token wrong in one way.
"""
import base64
import json
import struct
import sys

from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

RECIPIENT = "merchant:12345678901234567890"


def b64(data):
    return base64.b64encode(data).decode("ascii")


def length_value(*parts):
    out = b""
    for part in parts:
        data = part.encode("utf-8")
        out += struct.pack("<I", len(data)) + data
    return out


def spki(key):
    return key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def flip(data):
    data = bytearray(data)
    data[len(data) // 2] ^= 0x01
    return bytes(data)


def main():
    request = json.load(sys.stdin)
    case = request["case"]
    now = int(request["now"])
    hour = 3600 * 1000

    root = ec.generate_private_key(ec.SECP256R1())
    intermediate = ec.generate_private_key(ec.SECP256R1())
    merchant = ec.generate_private_key(ec.SECP256R1())

    key_list = {"keys": [{"keyValue": b64(spki(root)), "protocolVersion": "ECv2", "keyExpiration": str(now + 24 * hour)}]}

    key_expiration = now - hour if case == "intermediateExpired" else now + 2 * hour
    signed_key = json.dumps({"keyValue": b64(spki(intermediate)), "keyExpiration": str(key_expiration)})
    key_signer = ec.generate_private_key(ec.SECP256R1()) if case == "root" else root
    key_signature = key_signer.sign(length_value("Google", "ECv2", signed_key), ec.ECDSA(hashes.SHA256()))
    if case == "intermediateSignature":
        key_signature = flip(key_signature)

    message_expiration = now - hour if case == "messageExpired" else now + hour
    message = json.dumps({
        "messageExpiration": str(message_expiration),
        "messageId": "independent-" + b64(bytes(12)),
        "paymentMethod": "CARD",
        "paymentMethodDetails": {
            "expirationYear": 2031,
            "expirationMonth": 4,
            "pan": "4111111111111111",
            "authMethod": "CRYPTOGRAM_3DS",
            "eciIndicator": "05",
            "cryptogram": "AAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        },
    }).encode("utf-8")

    recipient_key = ec.generate_private_key(ec.SECP256R1()) if case == "key" else merchant
    ephemeral = ec.generate_private_key(ec.SECP256R1())
    ephemeral_public = ephemeral.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    shared = ephemeral.exchange(ec.ECDH(), recipient_key.public_key())
    derived = HKDF(algorithm=hashes.SHA256(), length=64, salt=bytes(32), info=b"Google").derive(ephemeral_public + shared)
    encryptor = Cipher(algorithms.AES(derived[:32]), modes.CTR(bytes(16))).encryptor()
    ciphertext = encryptor.update(message) + encryptor.finalize()
    mac = hmac.HMAC(derived[32:], hashes.SHA256())
    mac.update(ciphertext)
    tag = mac.finalize()
    if case == "tag":
        tag = flip(tag)
    if case == "ciphertext":
        ciphertext = flip(ciphertext)

    signed_message = json.dumps({"encryptedMessage": b64(ciphertext), "ephemeralPublicKey": b64(ephemeral_public), "tag": b64(tag)})
    recipient = "merchant:98765432109876543210" if case == "recipient" else RECIPIENT
    signature = intermediate.sign(length_value("Google", recipient, "ECv2", signed_message), ec.ECDSA(hashes.SHA256()))
    if case == "signature":
        signature = flip(signature)

    token = {
        "signature": b64(signature),
        "intermediateSigningKey": {"signedKey": signed_key, "signatures": [b64(key_signature)]},
        "protocolVersion": "ECv1" if case == "version" else "ECv2",
        "signedMessage": signed_message,
    }
    merchant_pem = merchant.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode("ascii")
    json.dump({"token": json.dumps(token), "rootKeys": json.dumps(key_list), "merchantKey": merchant_pem}, sys.stdout)


if __name__ == "__main__":
    main()
