"""gRPC over TLS when [grpc] tls-cert-file and tls-key-file are set: a self-signed certificate made here,
trusted by the client; a plaintext client is refused; the two settings go together."""

import datetime
import ipaddress

import grpc
import pytest
import pytest_twisted
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from chaind import config
from chaind.pb.cosmos.bank.v1beta1 import query_pb2 as bank_q
from chaind.pb.cosmos.bank.v1beta1 import query_pb2_grpc as bank_grpc
from evm_client import DEV0
from helpers import b32, grpc_sync, in_thread, make_node, until_height


def _self_signed(directory):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "chaind test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    (directory / "cert.pem").write_bytes(cert_pem)
    (directory / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                          serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
    return cert_pem


@pytest_twisted.inlineCallbacks
def test_tls_serves_a_trusting_client_and_refuses_plaintext(node_factory, tmp_path):
    cert = _self_signed(tmp_path)
    node = node_factory(grpc={"tls_cert_file": str(tmp_path / "cert.pem"), "tls_key_file": str(tmp_path / "key.pem")})
    # The header names the height read: wait for block 1, which a new chain makes at start, so none lands between.
    yield until_height(node, node.app.genesis.initial_height)
    request = bank_q.QueryBalanceRequest(address=b32(node, DEV0), denom="stake")
    trusted = grpc.ssl_channel_credentials(root_certificates=cert)
    reply, header = yield in_thread(grpc_sync, node, bank_grpc.QueryStub, "Balance", request, None, trusted)
    assert reply.balance.amount == str(10**21) and header["x-cosmos-block-height"] == str(node.app.height)
    reply, error = yield in_thread(grpc_sync, node, bank_grpc.QueryStub, "Balance", request, None)
    assert reply is None and error[0] == grpc.StatusCode.UNAVAILABLE
    # A client that does not trust the certificate is refused too.
    reply, error = yield in_thread(grpc_sync, node, bank_grpc.QueryStub, "Balance", request, None,
                                   grpc.ssl_channel_credentials())
    assert reply is None and error[0] == grpc.StatusCode.UNAVAILABLE


def test_cert_without_key_is_a_config_error():
    with pytest.raises(config.ConfigError, match="tls-cert-file and tls-key-file go together"):
        config.load(text='[grpc]\ntls-cert-file = "/tmp/cert.pem"\n')


def test_unreadable_key_stops_the_node_before_it_starts(tmp_path):
    with pytest.raises(config.ConfigError, match="cannot read the TLS key or certificate"):
        make_node(tmp_path / "home", grpc={"tls_cert_file": str(tmp_path / "none.pem"),
                                           "tls_key_file": str(tmp_path / "none.key")})
