"""Writes the certificates the TLS failure tests serve, with Python's `cryptography` (not our code).

Usage: python3 make_test_certificates.py DIRECTORY

DIRECTORY/ca.pem            a test CA (the one clients are told to trust)
DIRECTORY/other-ca.pem      another CA, which signed nothing the server presents
DIRECTORY/expired.pem, expired-key.pem        for 127.0.0.1 and localhost, expired yesterday
DIRECTORY/wrong-host.pem, wrong-host-key.pem  valid, but for api.example.com only
DIRECTORY/good.pem, good-key.pem              valid, for 127.0.0.1 and localhost
Each leaf file holds the leaf then the CA (a chain).
"""
import datetime
import ipaddress
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

directory = sys.argv[1]
now = datetime.datetime.now(datetime.timezone.utc)


def pem(certificate):
    return certificate.public_bytes(serialization.Encoding.PEM)


def write(name, data):
    with open(f"{directory}/{name}", "wb") as file:
        file.write(data)


def make_ca(common_name):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=30)).not_valid_after(now + datetime.timedelta(days=30))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                                data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                                                encipher_only=False, decipher_only=False), critical=True)
                   .sign(key, hashes.SHA256()))
    return key, certificate


def make_leaf(name, ca_key, ca_certificate, names, not_before, not_after):
    key = ec.generate_private_key(ec.SECP256R1())
    alternatives = [x509.IPAddress(ipaddress.ip_address(n)) if n[0].isdigit() else x509.DNSName(n) for n in names]
    certificate = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
                   .issuer_name(ca_certificate.subject).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(not_before).not_valid_after(not_after)
                   .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                   .sign(ca_key, hashes.SHA256()))
    write(f"{name}.pem", pem(certificate) + pem(ca_certificate))
    write(f"{name}-key.pem", key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))


ca_key, ca = make_ca("pushkit-free test CA")
write("ca.pem", pem(ca))
write("other-ca.pem", pem(make_ca("another CA")[1]))
local = ["127.0.0.1", "localhost"]
make_leaf("good", ca_key, ca, local, now - datetime.timedelta(days=1), now + datetime.timedelta(days=1))
make_leaf("expired", ca_key, ca, local, now - datetime.timedelta(days=10), now - datetime.timedelta(days=1))
make_leaf("wrong-host", ca_key, ca, ["api.example.com"], now - datetime.timedelta(days=1), now + datetime.timedelta(days=1))
