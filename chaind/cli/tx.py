"""`chaind tx`: the commands on a built tx (tx_files.py) and one group per module with a TX table, whose
commands build, sign and broadcast native txs through the tx factory (tx_factory.py), as the SDK's CLI does.
"""

from chaind.cli import autocli
from chaind.cli.keys import KeyringErrors
from chaind.cli.tx_factory import TxKit
from chaind.cli.tx_files import COMMANDS


class TxGroup(autocli.ModuleGroup, KeyringErrors):
    """`tx`'s group: module groups, and keyring errors as one line."""


def make_tx(modules):
    """`tx`: the commands on a built tx, and one group per module of `modules` (autocli.Modules) with a TX table."""
    kit = TxKit()
    group = TxGroup("tx", help="Build, sign and broadcast transactions.", modules=modules, part="TX",
                    build=lambda name, table: autocli.tx_group(name, table, kit))
    for command in COMMANDS:
        group.add_command(command)
    return group
