"""Native txs: an eth_secp256k1 key is accepted under Evmos' type URL and under cosmos/evm's."""

import pytest

from chaind.chain import errors, txs

from chain_driver import Chain


@pytest.mark.parametrize("url", [txs.ETH_PUBKEY, txs.COSMOS_EVM_PUBKEY])
def test_a_send_signed_under_either_pubkey_url_is_accepted(tmp_path, url):
    chain = Chain(tmp_path, "chain.db")
    try:
        def balance():
            return chain.app.bank.balance(chain.app.view(), chain.keys[3].address, chain.ibc)

        before = balance()
        raw = chain.native_send(2, chain.keys[3].address, 10**15, pubkey_url=url)
        assert chain.app.check_tx(raw).kind == "native"
        block = chain.block([raw])
        assert block.results[0].code == 0
        assert balance() == before + 10**15
    finally:
        chain.close()


def test_another_key_type_is_refused(tmp_path):
    chain = Chain(tmp_path, "chain.db")
    try:
        raw = chain.native_send(2, chain.keys[3].address, 1, pubkey_url="/cosmos.crypto.ed25519.PubKey")
        with pytest.raises(errors.TxError, match="unsupported public key type"):
            chain.app.check_tx(raw)
    finally:
        chain.close()
