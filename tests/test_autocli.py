"""The CLI built from modules' tables (cli/autocli.py): built-in tables are sound and agree with the registry, a
table shapes its commands, and a query loads no node code (tests/test_toy_module.py runs a whole module's)."""

import importlib
import os
import subprocess
import sys
import types
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from chaind.chain import cli_table
from chaind.cli import autocli
from chaind.cli.main import make_cli
from chaind.cli.tx_factory import TxKit
from cli_driver import DEV0_B32, failed

MINI = types.ModuleType("mini_cli")
MINI.QUERY = cli_table.Queries("chaind.pb.cosmos.bank.v1beta1.query_pb2", "A table of the test's own.", (
    cli_table.Query("holdings", "AllBalances", "What ADDRESS holds.", args=(cli_table.Arg("address", "acc"),)),
    cli_table.Query("supply-of", "SupplyOf", "One denom's supply.", args=(cli_table.Arg("denom"),)),
))
sys.modules["mini_cli"] = MINI


class Mini(NamedTuple):
    name: str = "mini"
    cli: str = "mini_cli"


def test_every_builtin_table_names_real_rpcs_messages_and_fields():
    found = autocli.builtin_modules()
    assert [m.name for m in found] == ["auth", "authz", "bank", "consensus", "crisis", "distribution", "epochs",
                                       "erc20", "evidence", "evm", "feegrant", "feemarket", "gov", "ibc_channel",
                                       "ibc_client", "ibc_connection", "inflation", "nft",
                                       "params", "slashing", "staking", "transfer", "upgrade", "vesting"]
    for ref in found:
        table = autocli.load_table(ref.cli)
        if getattr(table, "QUERY", None) is not None:
            pb = importlib.import_module(table.QUERY.service)
            service = pb.DESCRIPTOR.services_by_name[table.QUERY.service_name]
            for entry in table.QUERY.commands:
                fields = service.methods_by_name[entry.rpc].input_type.fields_by_name
                for name in [a.field for a in entry.args] + [f.field_name for f in entry.flags]:
                    assert name in fields, (ref.name, entry.name, name)
                if entry.narrow is not None:
                    fields = service.methods_by_name[entry.narrow.rpc].input_type.fields_by_name
                    for name in [a.field for a in entry.args] + [entry.narrow.flag.replace("-", "_")]:
                        assert name in fields, (ref.name, entry.name, entry.narrow.rpc, name)
        if getattr(table, "TX", None) is not None:
            pb = importlib.import_module(table.TX.module)
            for entry in table.TX.commands:
                fields = getattr(pb, entry.message).DESCRIPTOR.fields_by_name
                for name in [a.field for a in entry.args] + [entry.signer_field]:
                    assert name in fields, (ref.name, entry.name, name)
            for message, field in (table.TX.signers or {}).items():
                assert field in getattr(pb, message).DESCRIPTOR.fields_by_name, (ref.name, message)
    # Every entry builds its command.
    kit = TxKit()
    for ref in found:
        table = autocli.load_table(ref.cli)
        for entry in getattr(getattr(table, "QUERY", None), "commands", ()):
            assert autocli.query_command(table.QUERY, entry).name == entry.name
        for entry in getattr(getattr(table, "TX", None), "commands", ()):
            assert autocli.msg_command(table.TX, entry, kit).name == entry.name
    # validate-signatures knows the signer of every message the CLI builds.
    assert autocli.signer_fields(autocli.Modules(found)) == {
        "/cosmos.bank.v1beta1.MsgSend": "from_address", "/cosmos.bank.v1beta1.MsgMultiSend": "inputs",
        "/cosmos.staking.v1beta1.MsgDelegate": "delegator_address",
        "/cosmos.staking.v1beta1.MsgUndelegate": "delegator_address",
        "/cosmos.staking.v1beta1.MsgBeginRedelegate": "delegator_address",
        "/cosmos.staking.v1beta1.MsgCancelUnbondingDelegation": "delegator_address",
        "/cosmos.staking.v1beta1.MsgCreateValidator": "validator_address",
        "/cosmos.staking.v1beta1.MsgEditValidator": "validator_address",
        "/evmos.erc20.v1.MsgConvertERC20": "sender", "/evmos.erc20.v1.MsgConvertCoin": "sender",
        "/evmos.erc20.v1.MsgRegisterERC20": "authority", "/evmos.erc20.v1.MsgToggleConversion": "authority",
        "/cosmos.feegrant.v1beta1.MsgGrantAllowance": "granter",
        "/cosmos.feegrant.v1beta1.MsgRevokeAllowance": "granter",
        "/cosmos.feegrant.v1beta1.MsgPruneAllowances": "pruner",
        "/cosmos.distribution.v1beta1.MsgDepositValidatorRewardsPool": "depositor",
        "/cosmos.distribution.v1beta1.MsgFundCommunityPool": "depositor",
        "/cosmos.distribution.v1beta1.MsgSetWithdrawAddress": "delegator_address",
        "/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward": "delegator_address",
        "/cosmos.distribution.v1beta1.MsgWithdrawValidatorCommission": "validator_address",
        "/cosmos.gov.v1.MsgDeposit": "depositor", "/cosmos.gov.v1.MsgVote": "voter",
        "/cosmos.gov.v1.MsgCancelProposal": "proposer", "/cosmos.gov.v1.MsgSubmitProposal": "proposer",
        "/cosmos.gov.v1.MsgVoteWeighted": "voter", "/cosmos.crisis.v1beta1.MsgVerifyInvariant": "sender",
        "/cosmos.authz.v1beta1.MsgGrant": "granter", "/cosmos.authz.v1beta1.MsgRevoke": "granter",
        "/cosmos.authz.v1beta1.MsgExec": "grantee",
        "/cosmos.vesting.v1beta1.MsgCreateVestingAccount": "from_address",
        "/cosmos.vesting.v1beta1.MsgCreatePermanentLockedAccount": "from_address",
        "/cosmos.vesting.v1beta1.MsgCreatePeriodicVestingAccount": "from_address",
        "/cosmos.nft.v1beta1.MsgSend": "sender",
        "/cosmos.slashing.v1beta1.MsgUnjail": "validator_addr",
        "/ibc.core.client.v1.MsgCreateClient": "signer", "/ibc.core.client.v1.MsgUpdateClient": "signer",
        "/ibc.core.client.v1.MsgSubmitMisbehaviour": "signer", "/ibc.applications.transfer.v1.MsgTransfer": "sender"}


def test_a_table_imports_neither_the_cli_nor_its_package():
    # A table runs alone: its package's __init__ (the keeper, the node's code) and chaind.cli are not loaded.
    code = ("import sys; from chaind.cli.autocli import builtin_modules, load_table\n"
            "[load_table(m.cli) for m in builtin_modules()]\n"
            "print(sorted(n for n in sys.modules if n.startswith(('chaind.cli.main', 'chaind.cli.query', "
            "'chaind.cli.tx', 'chaind.crypto', 'eth_utils')) or n.endswith('.keeper')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_a_query_run_loads_no_node_code():
    code = ("import sys\nfrom chaind.cli.main import main\n"
            "try:\n    main(['query', 'bank', 'balances', 'chain17w0adeg64ky0daxwd2ugyuneellmjgnxkl0eq4', "
            "'--node', 'tcp://127.0.0.1:9'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(n for n in sys.modules if n.startswith(('chaind.chain.modules.staking', 'eth_utils', "
            "'chaind.chain.modules.erc20', 'chaind.chain.app', 'chaind.crypto', 'twisted')) "
            "or n.endswith(('.keeper', '.msgs'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert "could not reach node" in run.stderr
    assert run.stdout.strip() == "[]"


def test_a_kind_the_cli_does_not_know_is_refused_when_built():
    entry = cli_table.Query("odd", "Params", "Odd.", args=(cli_table.Arg("x", "colour"),))
    with pytest.raises(ValueError, match="odd: X kind 'colour'"):
        autocli.query_command(MINI.QUERY, entry)


def test_tables_shape_usage_and_flags():
    cli = make_cli([Mini()])
    usage = CliRunner().invoke(cli, ["query", "mini", "holdings", "--help"]).stdout
    assert "holdings [OPTIONS] ADDRESS" in usage and "--page-key" in usage and "--height" in usage
    # SupplyOf's request has no pagination: no pagination flags.
    assert "--page-key" not in CliRunner().invoke(cli, ["query", "mini", "supply-of", "--help"]).stdout
    # Only the modules given are served.
    assert "bank" not in CliRunner().invoke(cli, ["query", "--help"]).stdout
    failed(CliRunner().invoke(cli, ["query", "bank", "balances", DEV0_B32]), "No such command 'bank'")
    failed(CliRunner().invoke(cli, ["query", "mini", "holdings", "chainvaloper1nope"]), "invalid address")
    usage = CliRunner().invoke(make_cli(), ["tx", "erc20", "convert-coin", "--help"]).stdout
    assert "COIN" in usage and "[RECEIVER]" in usage


def test_the_cli_finds_the_registrys_tables():
    from chaind.chain.registry import MODULES

    assert {m.name: m.cli for m in MODULES if m.cli} == {m.name: m.cli for m in autocli.builtin_modules()}
