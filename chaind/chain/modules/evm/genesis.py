"""x/evm's genesis: app_state.evm {accounts, params} (Evmos' GenesisState JSON): its params into state, each
account's code and storage. The modules' precompiles get no code, as cosmos/evm's (eth_getCode answers 0x there;
their Solidity interfaces decode a result from every call, so solc checks no code size). The export lists every
account with code or storage."""

import attrs
import rlp
from google.protobuf import json_format

from chaind.chain.module_genesis import ModuleGenesis, all_accounts, to_json
from chaind.chain.modules.bank.genesis import known_accounts
from chaind.chain.modules.evm import params as evm_params
from chaind.crypto.addresses import checksum_address
from chaind.pb.ethermint.evm.v1 import evm_pb2, genesis_pb2
from chaind.store.evm_state import CommittedNodes, contract_accounts, preimage, trie_items


@attrs.frozen
class GenesisAccount:
    address: bytes
    code: bytes
    storage: tuple             # (slot int, value int)


@attrs.frozen
class EvmGenesis:
    params: object             # ethermint.evm.v1.Params
    accounts: tuple            # GenesisAccounts


def validate(section, context):
    """Evmos' ValidateGenesis: params, and each account's address, code and storage readable, no address twice
    and no key twice; then what this chain cannot run of the params (evm_params.unsupported)."""
    section = section or {}
    unknown = set(section) - {"accounts", "params"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    if "params" not in section:
        raise ValueError("params: missing")
    try:
        params = evm_params.parse_params(section["params"], context.precompiles)
        evm_params.validate(params)
    except (ValueError, json_format.ParseError) as e:
        raise ValueError(f"params: {e}") from None
    problem = evm_params.unsupported(params, context.base_denom, context.precompiles)
    if problem:
        raise ValueError(f"params: {problem}")
    return EvmGenesis(params, tuple(_accounts(section.get("accounts") or ())))


def _accounts(entries):
    seen = set()
    for i, entry in enumerate(entries):
        try:
            found = json_format.ParseDict(entry, genesis_pb2.GenesisAccount())
            address = _hex(found.address, 20, "address")
            code = bytes.fromhex(found.code.removeprefix("0x"))
            slots, storage = set(), []
            for j, state in enumerate(found.storage):
                slot = int.from_bytes(_hex(state.key, 32, f"storage[{j}].key"), "big")
                if slot in slots:
                    raise ValueError(f"storage[{j}]: duplicate state key {state.key}")
                slots.add(slot)
                storage.append((slot, int.from_bytes(_hex(state.value, 32, f"storage[{j}].value"), "big")))
        except (json_format.ParseError, ValueError) as e:
            raise ValueError(f"accounts[{i}]: {e}") from None
        if address in seen:
            raise ValueError(f"accounts[{i}]: duplicated genesis account {found.address}")
        seen.add(address)
        yield GenesisAccount(address, code, tuple(storage))


def _hex(text, size, what):
    digits = text.removeprefix("0x").removeprefix("0X")
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not hex") from None
    if len(raw) > size or (size == 20 and len(raw) != 20):
        raise ValueError(f"{what}: {text!r} is not {size} bytes")
    return raw.rjust(size, b"\0")


def init_genesis(app, ctx, genesis):
    """Params, then each account's code and storage (Evmos' InitGenesis)."""
    app.keepers["evm"].set_params(ctx, genesis.params)
    for account in genesis.accounts:
        if account.code:
            ctx.accounts.set_code(account.address, account.code)
        for slot, value in account.storage:
            ctx.accounts.set_storage(account.address, slot, value)


def default(context):
    return {"accounts": [], "params": to_json(evm_params.default_params(context.base_denom, context.precompiles))}


def export_genesis(app, view):
    """Evmos' ExportGenesis: params, and every account with code or storage (its address EIP-55, its code hex,
    its storage slots and values as 32-byte hex, by slot). Its nonce is auth's (the account's sequence)."""
    get = CommittedNodes(app.db).__getitem__
    accounts = []
    for address, _, storage_root, _ in contract_accounts(app.db, None, known_accounts(app, view),
                                                         all_accounts(app, view)):
        code = view.accounts.get_code(address)
        storage = _storage(app, get, address, storage_root)
        if code or storage:
            accounts.append(genesis_pb2.GenesisAccount(
                address=checksum_address(address), code=code.hex(),
                storage=[evm_pb2.State(key="0x" + slot.hex(), value="0x%064x" % value)
                         for slot, value in storage]))
    accounts.sort(key=lambda a: a.address.lower())
    return to_json(genesis_pb2.GenesisState(accounts=accounts, params=app.keepers["evm"].params(view)))


def _storage(app, get, address, storage_root):
    """[(slot bytes, value)] of an account's storage, by slot; ValueError for a slot whose preimage was never
    recorded."""
    out = []
    for slot_hash, raw in trie_items(get, storage_root):
        slot = preimage(app.db, slot_hash)
        if slot is None:
            raise ValueError(f"the storage of {checksum_address(address)} has a slot (hash 0x{slot_hash.hex()}) "
                             "whose preimage this node never recorded: it was written before chaind kept them")
        out.append((slot, int.from_bytes(rlp.decode(raw), "big")))
    return sorted(out)


GENESIS = ModuleGenesis(default=default, validate=validate, init=init_genesis, export=export_genesis)
