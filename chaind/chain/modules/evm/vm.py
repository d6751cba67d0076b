"""The EVM this chain runs (py-evm's Prague) and how its failures read, as geth words them."""

from eth.vm.forks.prague import PragueVM

VM = PragueVM


def vm_error(computation):
    """A failed computation's error as geth's vm errors say it (receipts, eth_call, EthCall)."""
    error = computation.error
    name = type(error).__name__
    if name == "Revert":
        return "execution reverted"
    if name == "OutOfGas":
        return "out of gas"
    if name == "InvalidJumpDestination":
        return "invalid jump destination"
    if name == "InvalidInstruction":
        return str(error) or "invalid opcode"
    if name == "StackDepthLimit":
        return "max call depth exceeded"
    if name == "InsufficientFunds":
        return "insufficient balance for transfer"
    if name == "ContractCreationCollision":
        return "contract address collision"
    if name == "WriteProtection":
        return "write protection"
    if name == "OutOfBoundsRead":
        return "return data out of bounds"
    if name == "InsufficientStack":
        return "stack underflow"
    if name == "FullStack":
        return "stack limit reached 1024"
    return str(error) or name
