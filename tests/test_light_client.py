"""chaind/consensus/light.py, CometBFT's light-client verification: a node's own headers read as a relayer reads
them verify adjacent and skipping; a 100-validator chain whose set changes verifies while more than the trust
level of the trusted set signs, and not after; and each broken header, commit or set fails with CometBFT's error.
"""

import hashlib
import json
import urllib.request

import coincurve
import pytest
import pytest_twisted

from chaind.consensus import light
from chaind.pb.tendermint.crypto import keys_pb2
from chaind.pb.tendermint.types import validator_pb2
from helpers import in_thread
from light_headers import (
    SECOND,
    key,
    signed_header,
    signed_header_from_json,
    validator_set,
    validator_set_from_json,
)

T0 = 1_700_000_000 * SECOND
HOUR = 3600 * SECOND
TRUSTING, DRIFT = 14 * 24 * HOUR, 10 * SECOND


def mine(node):
    request = urllib.request.Request(f"http://127.0.0.1:{node.port_of('json-rpc')}", headers={
        "content-type": "application/json"}, data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "evm_mine",
                                                               "params": []}).encode())
    with urllib.request.urlopen(request, timeout=20) as response:
        assert "error" not in json.loads(response.read())


def rpc(node, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{node.port_of('cometbft')}/{path}", timeout=20) as response:
        return json.loads(response.read())["result"]


@pytest.fixture
def nodes_headers(node):
    """The node's signed headers and validator sets at heights 2..5, from /commit and /validators."""
    def read():
        while node.app.height < 6:
            mine(node)
        return {h: (signed_header_from_json(rpc(node, f"commit?height={h}")["signed_header"]),
                    light.ValidatorSet.from_proto(validator_set_from_json(
                        rpc(node, f"validators?height={h}")["validators"])))
                for h in range(2, 6)}
    return pytest_twisted.blockon(in_thread(read))


def test_a_nodes_headers_verify_adjacent_and_skipping(node, nodes_headers):
    chain_id = node.app.genesis.chain_id
    for height, (signed, vals) in nodes_headers.items():
        light.validate_signed_header(signed, chain_id)
        assert light.header_hash(signed.header) == node.app.block_at(height)[0].hash()
        assert vals.hash() == signed.header.validators_hash
    now = light.time_ns(nodes_headers[5][0].header.time) + SECOND
    trusted, trusted_vals = nodes_headers[2]
    light.verify(trusted, trusted_vals, *nodes_headers[3], TRUSTING, now, DRIFT)          # adjacent
    light.verify(trusted, trusted_vals, *nodes_headers[5], TRUSTING, now, DRIFT)          # skipping
    with pytest.raises(light.LightError, match="headers must be non adjacent in height"):
        light.verify_non_adjacent(trusted, trusted_vals, *nodes_headers[3], TRUSTING, now, DRIFT)


def keys(start, count):
    return [key(seed) for seed in range(start, start + count)]


def test_a_hundred_validators_skip_while_a_third_of_the_trusted_set_still_signs():
    old = validator_set(keys(0, 100))
    # 40 of the trusted 100 remain among the signers of height 20: 400 of 1000 > 1/3.
    changed = validator_set(keys(60, 100))
    trusted = signed_header(10, T0, old, old, None)
    untrusted = signed_header(20, T0 + 60 * SECOND, changed, changed, None)
    now = T0 + 120 * SECOND
    trusted_vals, untrusted_vals = light.ValidatorSet.from_proto(old[0]), light.ValidatorSet.from_proto(changed[0])
    light.verify(trusted, trusted_vals, untrusted, untrusted_vals, TRUSTING, now, DRIFT)
    # 30 remain: 300 of 1000 is not more than a third.
    far = validator_set(keys(70, 100))
    farther = signed_header(20, T0 + 60 * SECOND, far, far, None)
    with pytest.raises(light.NewValSetCantBeTrusted, match="insufficient voting power: got 300, needed more than 333"):
        light.verify(trusted, trusted_vals, farther, light.ValidatorSet.from_proto(far[0]), TRUSTING, now, DRIFT)
    # A stricter trust level refuses what 1/3 allowed.
    with pytest.raises(light.NewValSetCantBeTrusted, match="got 400, needed more than 666"):
        light.verify(trusted, trusted_vals, untrusted, untrusted_vals, TRUSTING, now, DRIFT, (2, 3))
    # The new set must itself sign with more than 2/3: 66 of its 100 do not.
    few = {v.address for v in changed[0].validators[:66]}
    thin = signed_header(20, T0 + 60 * SECOND, changed, changed, few)
    with pytest.raises(light.LightError) as raised:
        light.verify(trusted, trusted_vals, thin, untrusted_vals, TRUSTING, now, DRIFT)
    assert "insufficient voting power" in str(raised.value)


def test_adjacent_headers_must_be_signed_by_the_set_the_trusted_header_named():
    old, new = validator_set(keys(0, 4)), validator_set(keys(10, 4))
    trusted = signed_header(10, T0, old, old, None)
    now = T0 + 120 * SECOND
    light.verify(trusted, light.ValidatorSet.from_proto(old[0]), signed_header(11, T0 + SECOND, old, new, None),
                 light.ValidatorSet.from_proto(old[0]), TRUSTING, now, DRIFT)
    with pytest.raises(light.LightError, match="expected old header next validators"):
        light.verify(trusted, light.ValidatorSet.from_proto(old[0]), signed_header(11, T0 + SECOND, new, new, None),
                     light.ValidatorSet.from_proto(new[0]), TRUSTING, now, DRIFT)
    # Exactly 2/3 of the power is not more than 2/3.
    two_of_three = validator_set(keys(0, 3))
    trusted = signed_header(10, T0, two_of_three, two_of_three, None)
    signers = {v.address for v in two_of_three[0].validators[:2]}
    with pytest.raises(light.InvalidHeader, match="insufficient voting power: got 20, needed more than 20"):
        light.verify(trusted, light.ValidatorSet.from_proto(two_of_three[0]),
                     signed_header(11, T0 + SECOND, two_of_three, two_of_three, signers),
                     light.ValidatorSet.from_proto(two_of_three[0]), TRUSTING, now, DRIFT)


def broken(change):
    """A header at 12 over a trusted one at 10 (four validators), changed by `change(signed)` after signing."""
    vals = validator_set(keys(0, 4))
    trusted = signed_header(10, T0, vals, vals, None)
    signed = signed_header(12, T0 + 2 * SECOND, vals, vals, None)
    change(signed)
    return trusted, light.ValidatorSet.from_proto(vals[0]), signed, light.ValidatorSet.from_proto(vals[0])


def _set(field, value):
    return lambda signed: setattr(signed.header, field, value)


@pytest.mark.parametrize("change, error", [
    (_set("app_hash", b"\x09" * 32), "invalid header: untrustedHeader.ValidateBasic failed: commit signs block"),
    (_set("chain_id", "other_1-1"), 'header belongs to another chain "other_1-1", not "counterparty_9001-1"'),
    (lambda s: setattr(s.commit, "height", 13), "header and commit height mismatch: 12 vs 13"),
    (lambda s: setattr(s.commit.signatures[1], "signature", bytes(64)), "wrong signature \\(#1\\)"),
    (lambda s: setattr(s.commit.signatures[0], "validator_address", b"\x01" * 19),
     "wrong CommitSig #0: expected ValidatorAddress size to be 20 bytes, got 19 bytes"),
    (lambda s: s.commit.ClearField("signatures"), "no signatures in commit"),
    (_set("proposer_address", b""), "invalid ProposerAddress length; got: 0, expected: 20"),
    (lambda s: setattr(s.header.version, "block", 10), "block protocol is incorrect: got: 10, want: 11"),
    (_set("height", 0), "zero Height"),
    (_set("data_hash", b"\x01" * 31), "wrong DataHash: expected size to be 32 bytes, got 31 bytes"),
])
def test_a_broken_header_or_commit_is_refused(change, error):
    with pytest.raises(light.LightError, match=error):
        light.verify(*broken(change), TRUSTING, T0 + 120 * SECOND, DRIFT)


def test_time_bounds_the_trusted_and_the_new_header():
    vals = validator_set(keys(0, 4))
    set_ = light.ValidatorSet.from_proto(vals[0])
    trusted = signed_header(10, T0, vals, vals, None)
    later = signed_header(12, T0 + 2 * SECOND, vals, vals, None)
    expired = "old header has expired at 2023-11-14 23:13:20 \\+0000 UTC \\(now: 2023-11-14 23:13:20 "
    with pytest.raises(light.OldHeaderExpired, match=expired):
        light.verify(trusted, set_, later, set_, HOUR, T0 + HOUR, DRIFT)
    with pytest.raises(light.InvalidHeader, match="new header has a time from the future"):
        light.verify(trusted, set_, later, set_, TRUSTING, T0 + 2 * SECOND - DRIFT, DRIFT)
    earlier = signed_header(12, T0, vals, vals, None)
    with pytest.raises(light.InvalidHeader, match="to be after old header time 2023-11-14 22:13:20 \\+0000 UTC"):
        light.verify(trusted, set_, earlier, set_, TRUSTING, T0 + HOUR, DRIFT)
    lower = signed_header(9, T0 + SECOND, vals, vals, None)
    with pytest.raises(light.InvalidHeader, match="expected new header height 9 to be greater than one of old "
                                                  "header 10"):
        light.verify(trusted, set_, lower, set_, TRUSTING, T0 + HOUR, DRIFT)


def test_validator_sets_are_checked_before_they_count():
    vals = validator_set(keys(0, 4))
    other = light.ValidatorSet.from_proto(validator_set(keys(20, 4))[0])
    trusted = signed_header(10, T0, vals, vals, None)
    later = signed_header(12, T0 + 2 * SECOND, vals, vals, None)
    with pytest.raises(light.InvalidHeader, match="expected new header validators .* to match those that were "
                                                  "supplied .* at height 12"):
        light.verify(trusted, light.ValidatorSet.from_proto(vals[0]), later, other, TRUSTING, T0 + HOUR, DRIFT)
    proto = vals[0]
    proto.validators[2].address = b"\x00" * 20
    with pytest.raises(light.LightError, match="invalid validator #2: validator address is incorrectly derived"):
        light.ValidatorSet.from_proto(proto)
    with pytest.raises(light.LightError, match="validator set is nil or empty"):
        light.ValidatorSet.from_proto(type(proto)())
    with pytest.raises(light.LightError, match="trustLevel must be within"):
        light.validate_trust_level((1, 4))
    light.validate_trust_level((1, 3))


def test_a_secp256k1_validator_signs_in_low_s_only():
    private = coincurve.PrivateKey(hashlib.sha256(b"secp validator").digest())
    pubkey = private.public_key.format(compressed=True)
    address = hashlib.new("ripemd160", hashlib.sha256(pubkey).digest()).digest()
    member = validator_pb2.Validator(address=address, pub_key=keys_pb2.PublicKey(secp256k1=pubkey), voting_power=10)
    vals = light.ValidatorSet.from_proto(validator_pb2.ValidatorSet(validators=[member], proposer=member))
    message = b"a vote's sign bytes"
    compact = coincurve.ecdsa.serialize_compact(coincurve.ecdsa.der_to_cdata(
        private.sign(message, hasher=lambda m: hashlib.sha256(m).digest())))
    assert vals.validators[0].verify(message, compact)
    n = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
    high_s = compact[:32] + (n - int.from_bytes(compact[32:], "big")).to_bytes(32, "big")
    assert not vals.validators[0].verify(message, high_s)
    assert not vals.validators[0].verify(message + b"!", compact)
