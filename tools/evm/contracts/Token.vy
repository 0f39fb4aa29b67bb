# pragma version 0.4.3
# A small ERC-20 for the EVM differential test and benchmark (tools/evm): EVMKit and revm must run it
# alike. Not the marketplace's token; no extensions beyond the standard.

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
    self.name = "Hub Test Token"
    self.symbol = "HTT"
    self.decimals = 18
    self.totalSupply = supply
    self.balanceOf[msg.sender] = supply
    log Transfer(sender=empty(address), receiver=msg.sender, value=supply)


@internal
def _transfer(sender: address, receiver: address, amount: uint256):
    assert receiver != empty(address), "transfer to the zero address"
    # Checked arithmetic: an overdraft reverts here.
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
    self.allowance[sender][msg.sender] -= amount
    self._transfer(sender, receiver, amount)
    return True
