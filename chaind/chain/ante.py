"""The ante handler: what the SDK's and Evmos' ante decorators check of a tx before its messages run.

Signers and signatures (direct, amino JSON, EIP-712 and its legacy form), fees, fee payer and granter, gas.
"""

import base64
import functools

import attrs
from eth_utils import to_checksum_address

from chaind.chain import amino, eip712, eip712_legacy, errors, txs, web3tx
from chaind.chain.block import event
from chaind.chain.modules import auth
from chaind.chain.modules.auth.params import SIG_VERIFY_COST_ETH_SECP256K1, SIG_VERIFY_COST_SECP256K1
from chaind.chain.modules.bank import format_coins
from chaind.crypto import addresses
from chaind.crypto import keys as crypto_keys
from chaind.pb.cosmos.tx.signing.v1beta1 import signing_pb2

_SIG_VERIFY_COST = {crypto_keys.ETH_SECP256K1: SIG_VERIFY_COST_ETH_SECP256K1,
                    crypto_keys.SECP256K1: SIG_VERIFY_COST_SECP256K1}


class Ante:
    """The ante of a chain of `genesis`: `amino_encoder` (amino.Encoder) makes amino JSON sign docs, `bank` (bank's
    keeper) moves the fee, `auth` (auth's keeper) keeps the signers' accounts and its params, `feegrant`: feegrant's
    keeper, whose allowances pay the fees of txs that name a fee granter; None when x/feegrant is not among the
    chain's modules. `feemarket` (its keeper) gives the min gas price, `evm` (its keeper) whether unprotected txs
    run."""

    def __init__(self, genesis, amino_encoder, bank, auth, feegrant, feemarket, evm):
        self.genesis = genesis
        self.amino = amino_encoder
        self.bank = bank
        self.auth = auth
        self.feegrant = feegrant
        self.feemarket = feemarket
        self.evm = evm

    # -- EVM txs ---------------------------------------------------------------------------------

    def check_gas_wanted(self, tx, limit):
        """A tx wanting more gas than the next block may use (`limit`) is refused, as no block could carry it: the
        SDK ante's SetUpContextDecorator for a native tx, Evmos' CheckGasWanted for an EVM one (over JSON-RPC,
        geth's txpool.ErrGasLimit). Without it CometBFT's mempool would drop such a tx (PostCheckMaxGas) after the
        app admitted it; max_gas -1 is no limit."""
        if tx.gas <= limit:
            return
        if tx.kind == "evm":
            raise errors.TxError(errors.SDK, 11, f"tx gas ({tx.gas}) exceeds block gas limit ({limit}): out of gas",
                                 "exceeds block gas limit")
        raise errors.invalid_gas_limit(f"tx gas limit {tx.gas} exceeds block max gas {limit}")

    def check_protected(self, state, evm_tx):
        """Evmos' SignatureVerification: a tx without an EIP-155 chain id runs only when the evm params allow it."""
        if evm_tx.chain_id is None and not self.evm.allow_unprotected(state):
            raise errors.TxError(errors.SDK, 37, "rejected unprotected Ethereum transaction. Please EIP155 sign your "
                                 "transaction to protect it against replay-attacks: feature not supported",
                                 "rejected unprotected Ethereum transaction. Please EIP155 sign your transaction to "
                                 "protect it against replay-attacks")

    def check_evm(self, state, tx, base_fee, min_gas_price, now_s):
        """An EVM tx against `state` for a block of `base_fee`, feemarket's `min_gas_price`, at time `now_s`."""
        evm_tx = tx.evm
        self.check_protected(state, evm_tx)
        # Evmos' CheckGlobalFee: the effective fee at the next base fee covers min_gas_price * gas limit.
        if min_gas_price:
            price = tx.max_fee if tx.type_id in (0, 1) else min(tx.max_fee, base_fee + tx.max_tip)
            fee, required = price * evm_tx.gas, min_gas_price * evm_tx.gas // 10**18
            if fee < required:
                raise errors.insufficient_fee(
                    f"provided fee < minimum global fee ({fee} < {required}). Please increase the priority tip (for "
                    "EIP-1559 txs) or the gas prices (for access list or legacy txs)")
        intrinsic = evm_tx.intrinsic_gas
        if evm_tx.gas < intrinsic:
            raise errors.TxError(errors.SDK, 11, f"gas limit {evm_tx.gas} below intrinsic gas {intrinsic}: out of gas",
                                 "intrinsic gas too low")
        nonce = state.accounts.get_nonce(tx.sender)
        if evm_tx.nonce < nonce:
            raise errors.wrong_sequence(nonce, evm_tx.nonce,
                                        f"nonce too low: next nonce {nonce}, tx nonce {evm_tx.nonce}")
        if evm_tx.max_fee_per_gas < base_fee:
            raise errors.insufficient_fee(
                f"max fee per gas less than block base fee ({evm_tx.max_fee_per_gas} < {base_fee})",
                f"max fee per gas less than block base fee: address {_hex(tx.sender)}, "
                f"maxFeePerGas: {evm_tx.max_fee_per_gas}, baseFee: {base_fee}")
        cost = evm_tx.gas * evm_tx.max_fee_per_gas + evm_tx.value
        # A vesting account's locked coins pay for nothing (x/auth/vesting), as of the head's time.
        locked = self.auth.locked_coins(state, tx.sender, now_s).get(self.genesis.base_denom, 0)
        have = max(0, state.accounts.get_balance(tx.sender) - locked)
        if have < cost:
            raise errors.insufficient_funds(
                f"sender balance < tx cost ({have} < {cost})",
                f"insufficient funds for gas * price + value: address {_hex(tx.sender)} have {have} want {cost}")

    # -- native txs ------------------------------------------------------------------------------

    def check_native(self, state, tx, height, base_fee, time_ns, simulate=False):
        """The SDK's ante for a native tx in block `height`: memo, timeout height, signature count, signers, each
        signer's account, sequence and signature (not in a simulation), and the fee (at `base_fee` and `time_ns`)
        and who pays it. Returns the fee's source (fee_source), None in a simulation. The messages' stateless
        checks are the app's."""
        params = self.auth.params
        memo = len(tx.body.memo)
        if memo > params.max_memo_characters:
            raise errors.TxError(errors.SDK, 12, f"maximum number of characters is {params.max_memo_characters} "
                                 f"but received {memo} characters: memo too large")
        timeout = tx.body.timeout_height
        if timeout and height > timeout:
            raise errors.TxError(errors.SDK, 30, f"block height: {height}, timeout height: {timeout}: "
                                 "tx timeout height")
        count = sum(len(s.multisig.members) if s.multisig else 1 for s in tx.signers)
        if count > params.tx_sig_limit:
            raise errors.TxError(errors.SDK, 14, f"signatures: {count}, limit: {params.tx_sig_limit}: "
                                 "too many signatures")
        # A gen tx (genutil, delivered at the height before the first) is signed offline with account number 0
        # and pays no base fee, as the SDK's ante and Evmos' fee checker treat it; the fee it carries is paid.
        at_genesis = height == self.genesis.initial_height - 1
        self._check_signers(tx)
        self._check_signer_accounts(state, tx, simulate, at_genesis)
        if simulate:
            return None
        return self._check_fee(state, tx, 0 if at_genesis else base_fee, time_ns)

    def deliver(self, ctx, tx, fee_source, simulate=False):
        """The ante's part of a native tx in a block, after check_native: each signer's sequence, the gas of the
        tx's size and signatures, the fee paid and the signers' sequences used. Returns (gas used, gas limit,
        events)."""
        for signer in tx.signers:
            nonce = ctx.accounts.get_nonce(signer.address)
            if signer.sequence != nonce:
                raise errors.wrong_sequence(nonce, signer.sequence, "invalid nonce")
        gas = (len(tx.raw) + (_missing_signature_size(tx) if simulate else 0)) \
            * self.auth.params.tx_size_cost_per_byte + _sig_verify_gas(tx)
        # A simulation runs on an unlimited gas meter: its point is to measure the gas; so do gen txs, as
        # the SDK's SetUpContextDecorator gives the genesis block one.
        limit = float("inf") if simulate or ctx.height == self.genesis.initial_height - 1 else tx.gas
        if gas > limit:
            raise errors.out_of_gas(f"txSize; gasWanted: {tx.gas}, gasUsed: {gas}")
        # The fee first: it is the one ante write that can fail, and then nothing else has been written.
        events = self._deduct_fee(ctx, tx, fee_source)
        events += self._use_signers(ctx, tx)
        return gas, limit, events

    def tx_signers(self, tx):
        """The addresses that must sign a native tx, in the SDK's GetSigners order: each message's signer,
        deduplicated, then the fee payer when it names an account not among them."""
        signers = []
        for handler, msg in tx.messages:
            address = self.signer_address(handler.signer(msg))
            if address not in signers:
                signers.append(address)
        payer = self._fee_payer_field(tx)
        if payer is not None and payer not in signers:
            signers.append(payer)
        return signers

    def simulated_signers(self, tx):
        """The SDK takes a tx's signers from its messages and fee payer, and checks each key against its signer
        only outside simulation (SetPubKeyDecorator): @cosmjs simulates an eth_secp256k1 account's tx with its key
        written as a Cosmos one, whose address is another."""
        try:
            expected = self.tx_signers(tx)
        except errors.TxError:
            return tx               # the ante names the fault
        if len(expected) != len(tx.signers):
            return tx
        return attrs.evolve(tx, signers=tuple(
            signer if signer.multisig is not None or signer.address == address else _as_simulated(signer, address)
            for signer, address in zip(tx.signers, expected, strict=True)))

    def signer_address(self, text):
        """A signer field's account bytes: an account address, or a validator operator's (valoper)."""
        prefix = self.genesis.bech32_prefix
        try:
            return addresses.parse(text, prefix + "valoper" if text.startswith(prefix + "valoper") else prefix)
        except addresses.AddressError as e:
            raise errors.invalid_address(f"invalid signer address: {e}") from None

    def fee_payer(self, tx):
        """The SDK's FeePayer: fee.payer, or the first signer."""
        payer = self._fee_payer_field(tx)
        return tx.sender if payer is None else payer

    def b32(self, address):
        return self.bank.bech32(address)

    def _check_signers(self, tx):
        """One signature per required signer, each SignerInfo's key making that signer's address."""
        expected = self.tx_signers(tx)
        if len(expected) != len(tx.signers):
            raise errors.unauthorized(f"wrong number of signers; expected {len(expected)}, got {len(tx.signers)}")
        for index, (address, signer) in enumerate(zip(expected, tx.signers, strict=True)):
            if signer.address != address:
                raise errors.TxError(errors.SDK, 8, f"pubKey does not match signer address {self.b32(address)} "
                                     f"with signer index: {index}: invalid pubkey")

    def _check_signer_accounts(self, state, tx, simulate, at_genesis=False):
        """Each signer's account exists, its sequence is not used yet (the mempool orders what is pending)
        and its signature verifies over its sign doc (not in a simulation; at genesis, over account number 0)."""
        for signer in tx.signers:
            account = self.auth.account(state, signer.address)
            if account is None:
                raise errors.TxError(errors.SDK, 9, f"account {self.b32(signer.address)} not found: unknown address")
            number = 0 if at_genesis else account[0]
            nonce = state.accounts.get_nonce(signer.address)
            if signer.sequence < nonce:
                raise errors.wrong_sequence(nonce, signer.sequence,
                                            f"nonce too low: next nonce {nonce}, tx nonce {signer.sequence}")
            # A simulation is not checked for its signature (whatever its sign mode) or fee, as in the SDK's
            # ante handlers: clients simulate to learn the gas, before they know the fee to sign.
            if not simulate and tx.web3 is not None:
                # Evmos' legacy EIP-712 road: the signature travels in the extension option.
                web3tx.verify(tx, self.amino, self.genesis.chain_id, number, self.genesis.bech32_prefix)
            elif not simulate and not self._signature_valid(tx, signer, number):
                raise errors.unauthorized(
                    f"signature verification failed; please verify account number ({number}) and chain-id "
                    f"({self.genesis.chain_id})")

    def _signature_valid(self, tx, signer, number):
        """A single key's signature, or every signing member's, over the sign bytes of its sign mode."""
        legacy = functools.partial(self._legacy_eip712_digest, tx)
        if signer.multisig is None:
            return _verify(signer.key_type, signer.public_key, signer.sign_mode,
                           self._sign_bytes(tx, number, signer.sequence, signer.sign_mode), signer.signature, legacy)
        members = signer.multisig.members
        return all(_verify(members[i][0], members[i][1], mode, self._sign_bytes(tx, number, signer.sequence, mode),
                           signature, legacy)
                   for (i, signature), mode in zip(signer.multisig.signed, signer.multisig.modes, strict=True))

    def _legacy_eip712_digest(self, tx, sign_bytes):
        """The amino doc's digest in Evmos' legacy EIP-712 form, which v20's eth_secp256k1 key still accepts
        (LegacyGetEIP712BytesForMsg): the messages of one amino type and one signer, that signer the fee payer."""
        names = {self.amino.named(msg)["type"] for _, msg in tx.messages}
        try:
            signers = {self.signer_address(handler.signer(msg)) for handler, msg in tx.messages}
        except errors.TxError as e:
            raise eip712.TypedDataError(e.log) from None
        if len(names) != 1 or len(signers) != 1:
            raise eip712.TypedDataError("unable to build EIP-712 payload: different types of messages or signers")
        prefix = self.genesis.bech32_prefix
        return eip712_legacy.digest(sign_bytes, eip712.chain_number(self.genesis.chain_id), tx.messages[0][1],
                                    addresses.to_bech32(prefix, signers.pop()), self.amino.any_types)

    def _sign_bytes(self, tx, number, sequence, mode):
        if mode == signing_pb2.SIGN_MODE_DIRECT:
            return txs.sign_doc_bytes(tx, self.genesis.chain_id, number)
        if mode == signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON:
            return amino.sign_bytes(self.amino, tx.body, tx.auth_info.fee, self.genesis.chain_id, number, sequence)
        raise errors.unauthorized(f"unsupported sign mode {signing_pb2.SignMode.Name(mode)}")

    def _fee_payer_field(self, tx):
        """The account `fee.payer` names, or None when it is empty."""
        payer = tx.auth_info.fee.payer
        if not payer:
            return None
        try:
            return addresses.parse(payer, self.genesis.bech32_prefix)
        except addresses.AddressError as e:
            raise errors.invalid_address(f"Invalid fee payer address ({e})") from None

    def _fee_granter(self, tx):
        """The account fee.granter names (the fee's source through a feegrant allowance), or None."""
        granter = tx.auth_info.fee.granter
        if not granter:
            return None
        if self.feegrant is None:
            raise errors.invalid_request("fee grants are not enabled")
        try:
            return addresses.parse(granter, self.genesis.bech32_prefix)
        except addresses.AddressError as e:
            raise errors.invalid_address(f"invalid fee granter address: {e}") from None

    def _fee_source(self, state, tx, fee, time_ns):
        """(who the fee is taken from, the feegrant allowance it uses or None): DeductFeeDecorator's deductFeesFrom.
        A granter other than the payer must allow the fee (feegrant's Accept, at time_ns); nothing is written."""
        payer, granter = self.fee_payer(tx), self._fee_granter(tx)
        if granter is None:
            return payer, None
        if granter == payer:
            return granter, None
        try:
            used = self.feegrant.accept(state, granter, payer, fee,
                                        [handler.type_url for handler, _ in tx.messages], time_ns)
        except errors.TxError as e:
            raise errors.TxError(e.codespace, e.code, f"{self.b32(granter)} does not allow to pay fees for "
                                 f"{self.b32(payer)}: {e.log}") from None
        return granter, used

    def _check_fee(self, state, tx, base_fee, now):
        """The fee is in the base denom, covers the base fee, and whoever pays it can at time `now` (check_tx: the
        head's); returns _fee_source's answer."""
        base = self.genesis.base_denom
        fee = dict(tx.fee)
        _check_min_gas_price(self.feemarket.params(state).min_gas_price, base, tx)
        if set(fee) - {base}:
            raise errors.insufficient_fee(f"fees must be paid in {base}")
        required = base_fee * tx.gas
        if fee.get(base, 0) < required:
            raise errors.insufficient_fee(
                f"insufficient fees; got: {format_coins(tx.fee)} required: {required}{base}")
        found = self._fee_source(state, tx, [c for c in tx.fee if c[1]], now)
        source = found[0]
        # A signer's account was just read; only a granter's needs looking up.
        if source not in {s.address for s in tx.signers} and self.auth.account(state, source) is None:
            raise errors.TxError(errors.SDK, 9, f"fee payer address: {self.b32(source)} does not exist: "
                                 "unknown address")
        # A vesting account pays no fee from its locked coins.
        if self.bank.spendable(state, source, base, now // 10**9) < fee.get(base, 0):
            raise errors.insufficient_funds(f"insufficient funds to pay fee {format_coins(tx.fee)}")
        return found

    def _deduct_fee(self, ctx, tx, fee_source=None):
        """DeductFeeDecorator on the block: the allowance used (feegrant's events), the fee sent to the fee
        collector, and the `tx` event naming who paid. fee_source: what the ante's fee check found, if it ran."""
        fee = [c for c in tx.fee if c[1]]
        source, used = fee_source or self._fee_source(ctx, tx, fee, ctx.time_ns)
        events = [] if used is None else self.feegrant.use(ctx, used)
        if fee:
            events += self.bank.send(ctx, source, auth.FEE_COLLECTOR, fee)
            events.append(event("message", ("sender", self.b32(source))))
        events.append(event("tx", ("fee", format_coins(fee)), ("fee_payer", self.b32(source))))
        return events

    def _use_signers(self, ctx, tx):
        """SetPubKey and IncrementSequence for every signer, with the `tx` events that index the tx by each
        signer's sequence and signatures (tx.acc_seq, tx.signature), signer by signer as the SDK emits them."""
        events = []
        for signer in tx.signers:
            if signer.multisig is None:
                self.auth.set_public_key(ctx, signer.address, signer.public_key, signer.key_type)
            else:
                # auth keeps single keys only: a multisig account stays keyless (its txs carry the key anyway).
                self.auth.ensure_account(ctx, signer.address)
            ctx.accounts.increment_nonce(signer.address)
            events.append(event("tx", ("acc_seq", f"{self.b32(signer.address)}/{signer.sequence}")))
            # As the SDK's signatureDataToBz: a multisig's member signatures, then the aggregate.
            members = [] if signer.multisig is None else [signature for _, signature in signer.multisig.signed]
            for signature in members + [signer.signature]:
                events.append(event("tx", ("signature", base64.b64encode(signature).decode())))
        return events


def _verify(key_type, public_key, mode, sign_bytes, signature, legacy_digest=None):
    """A key's signature of the sign bytes; an eth_secp256k1 key's amino JSON signature may also be MetaMask's,
    over the doc's EIP-712 form or its legacy form (legacy_digest(sign_bytes)), as Evmos v20's ethsecp256k1
    PubKey.VerifySignature takes them."""
    if key_type != crypto_keys.ETH_SECP256K1 or mode != signing_pb2.SIGN_MODE_LEGACY_AMINO_JSON:
        return crypto_keys.verify_signed(key_type, public_key, sign_bytes, signature)
    typed = functools.partial(_eip712_signed, public_key, sign_bytes, signature, legacy_digest)
    plain = functools.partial(crypto_keys.verify_signed, key_type, public_key, sign_bytes, signature)
    # Any form passes, so the order changes no answer, only the cost: MetaMask's signatures carry V 27/28
    # (go-ethereum's 0/1), and theirs are tried against the EIP-712 digests first.
    checks = (typed, plain) if signature[64:] in (b"\x1b", b"\x1c") else (plain, typed)
    return any(check() for check in checks)


def _eip712_signed(public_key, sign_bytes, signature, legacy_digest):
    for make in (eip712.digest, legacy_digest):
        if make is None:
            continue
        try:
            digest = make(sign_bytes)
        except eip712.TypedDataError:
            return False
        if crypto_keys.verify(public_key, digest, signature):
            return True
    return False


def _as_simulated(signer, address):
    """`signer` as the account `address` it stands for in a simulation; a key written as a Cosmos one that is the
    account's eth_secp256k1 key (as @cosmjs writes it) is charged as the key the delivered tx will verify with,
    or the simulated gas falls 20,000 short of delivery's."""
    if signer.key_type == crypto_keys.SECP256K1 and \
            crypto_keys.address_of(crypto_keys.ETH_SECP256K1, signer.public_key) == address:
        return attrs.evolve(signer, address=address, key_type=crypto_keys.ETH_SECP256K1)
    return attrs.evolve(signer, address=address)


def _sig_verify_gas(tx):
    """The ante's signature gas, every signer's; a multisig's is each signing member's
    (ConsumeMultisignatureVerificationGas)."""
    return sum(_SIG_VERIFY_COST[s.key_type] if s.multisig is None
               else sum(_SIG_VERIFY_COST[s.multisig.members[i][0]] for i, _ in s.multisig.signed)
               for s in tx.signers)


def _missing_signature_size(tx):
    """Bytes a simulated tx's empty signatures will take once signed (the SDK's simulate mode charges a
    placeholder signature), so the gas it reports covers the signed tx; a real signature adds none."""
    return sum(crypto_keys.SIGNATURE_SIZE[s.key_type] for s in tx.signers if s.multisig is None and not s.signature)


def _check_min_gas_price(min_gas_price, denom, tx):
    """Evmos' cosmos MinGasPriceDecorator: the fee covers min_gas_price * gas (rounded up) in the EVM denom."""
    if not min_gas_price:
        return
    required = -(-min_gas_price * tx.gas // 10**18)
    if not required:
        return
    fee = [c for c in tx.fee if c[1]]
    if not fee:
        raise errors.insufficient_fee(
            "fee not provided. Please use the --fees flag or the --gas-price flag along with the --gas flag to "
            f"estimate the fee. The minimun global fee for this tx is: {required}{denom}")
    if dict(fee).get(denom, 0) < required:
        raise errors.insufficient_fee(f"provided fee < minimum global fee ({format_coins(fee)} < {required}{denom}). "
                                      "Please increase the gas price.")


def _hex(address):
    return to_checksum_address(address)
