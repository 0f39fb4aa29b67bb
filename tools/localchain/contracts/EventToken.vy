# pragma version 0.4.3
# An ERC-20 deployed on a local chain by scripts/localchain-web3-test.sh (web3.py) and by the
# rail's JSON-RPC tests: standard transfers, approvals and events, and a revert with a reason, so
# receipts, logs, eth_call, eth_estimateGas and revert data are checked with a real compiler's code.

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256

event Approval:
    owner: indexed(address)
    spender: indexed(address)
    value: uint256

name: public(String[32])
symbol: public(String[8])
decimals: public(uint8)
totalSupply: public(uint256)
balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])


@deploy
def __init__(supply: uint256):
    self.name = "Event Token"
    self.symbol = "EVTK"
    self.decimals = 18
    self.totalSupply = supply
    self.balanceOf[msg.sender] = supply
    log Transfer(sender=empty(address), receiver=msg.sender, value=supply)


@internal
def _transfer(sender: address, receiver: address, amount: uint256):
    assert receiver != empty(address), "transfer to the zero address"
    assert self.balanceOf[sender] >= amount, "transfer amount exceeds balance"
    self.balanceOf[sender] -= amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=sender, receiver=receiver, value=amount)


@external
def transfer(receiver: address, amount: uint256) -> bool:
    self._transfer(msg.sender, receiver, amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self.allowance[msg.sender][spender] = amount
    log Approval(owner=msg.sender, spender=spender, value=amount)
    return True


@external
def transferFrom(sender: address, receiver: address, amount: uint256) -> bool:
    assert self.allowance[sender][msg.sender] >= amount, "transfer amount exceeds allowance"
    self.allowance[sender][msg.sender] -= amount
    self._transfer(sender, receiver, amount)
    return True
