"""check_tx of a MsgSend signed in SIGN_MODE_LEGACY_AMINO_JSON (keccak, MetaMask's EIP-712, and Evmos' legacy
EIP-712 in an ExtensionOptionsWeb3Tx) against the same tx in SIGN_MODE_DIRECT (issue 17).

Usage: python bench/sign_modes.py [N]   (default 2000 checks each; prints figures and the 1.5x bar)
"""

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))      # native_txs

from chaind.chain import amino, eip712, eip712_legacy, txs, web3tx
from chaind.chain.app import App
from chaind.chain.genesis import Genesis
from chaind.crypto.addresses import to_bech32
from chaind.home import Home
from chaind.pb.cosmos.bank.v1beta1 import tx_pb2 as bank_tx
from chaind.pb.cosmos.base.v1beta1 import coin_pb2
from chaind.pb.cosmos.tx.v1beta1 import tx_pb2
from chaind.pb.ethermint.types.v1 import web3_pb2
from chaind.store.db import Database
from native_txs import build_native

BAR = 1.5


def run(n):
    tmp = Path(tempfile.mkdtemp(prefix="bench-sign-modes-"))
    try:
        home = Home(tmp / "home")
        home.init("bench", dev=True)
        genesis = Genesis.load(home.genesis_file)
        db = Database(tmp / "db")
        app = App(db, genesis)
        key = home.dev_keys()[2]
        prefix, base = genesis.bech32_prefix, genesis.base_denom
        msg = bank_tx.MsgSend(from_address=to_bech32(prefix, key.address), to_address=to_bech32(prefix, b"\x61" * 20),
                              amount=[coin_pb2.Coin(denom=base, amount="1")])
        fee = [(base, app.next_base_fee() * 200000)]
        view = app.view()
        number = app.keepers["auth"].account(view, key.address)[0]
        nonce = view.accounts.get_nonce(key.address)
        raws = {mode: build_native([(txs.MSG_SEND, msg)], key, genesis.chain_id, number, nonce, fee, 200000,
                                   memo="bench", amino_encoder=encoder)
                for mode, encoder in (("direct", None), ("amino-json", app.amino))}
        # The amino tx signed as MetaMask signs it: over the doc's EIP-712 digest, V as 27/28.
        tx_raw = tx_pb2.TxRaw.FromString(raws["amino-json"])
        doc = amino.sign_bytes(app.amino, tx_pb2.TxBody.FromString(tx_raw.body_bytes),
                               tx_pb2.AuthInfo.FromString(tx_raw.auth_info_bytes).fee, genesis.chain_id, number, nonce)
        signature = key.sign_digest(eip712.digest(doc))
        tx_raw.signatures[0] = signature[:64] + bytes([signature[64] + 27])
        raws["eip712"] = tx_raw.SerializeToString()
        # The legacy road: the signature of the legacy typed data in the extension, the tx's own left empty.
        body = tx_pb2.TxBody.FromString(tx_raw.body_bytes)
        payer = to_bech32(prefix, key.address)
        signature = key.sign_digest(eip712_legacy.digest(doc, eip712.chain_number(genesis.chain_id), msg, payer,
                                                         app.amino.any_types))
        body.extension_options.add(type_url=web3tx.URL, value=web3_pb2.ExtensionOptionsWeb3Tx(
            typed_data_chain_id=eip712.chain_number(genesis.chain_id), fee_payer=payer,
            fee_payer_sig=signature[:64] + bytes([signature[64] + 27])).SerializeToString())
        raws["web3-legacy"] = tx_pb2.TxRaw(body_bytes=body.SerializeToString(), auth_info_bytes=tx_raw.auth_info_bytes,
                                           signatures=[b""]).SerializeToString()
        figures = dict.fromkeys(raws, 0.0)
        for raw in raws.values():
            app.check_tx(raw)                         # warm the head view
        # Rounds alternate the modes, so a busy neighbour on a shared box slows both alike.
        for _ in range(10):
            for mode, raw in raws.items():
                started = time.perf_counter()
                for _ in range(n // 10):
                    app.check_tx(raw)
                figures[mode] += (time.perf_counter() - started) / n
        db.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for mode, seconds in figures.items():
        print(f"check_tx {mode:<11} {seconds * 1e6:8.1f} us  ({1 / seconds:7.0f}/s)")
    for mode in ("amino-json", "eip712", "web3-legacy"):
        ratio = figures[mode] / figures["direct"]
        print(f"{mode} / direct: {ratio:.2f}x (bar {BAR}x): {'ok' if ratio <= BAR else 'OVER'}")


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
