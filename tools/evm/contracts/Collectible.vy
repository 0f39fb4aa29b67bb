# pragma version 0.4.3
# A small ERC-721 for the EVM differential test and benchmark (tools/evm): token ids count up from 1,
# and only the minter named at deployment mints.

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    token_id: indexed(uint256)

event Approval:
    owner: indexed(address)
    approved: indexed(address)
    token_id: indexed(uint256)

event ApprovalForAll:
    owner: indexed(address)
    operator: indexed(address)
    approved: bool

minter: public(address)
totalSupply: public(uint256)
ownerOf: public(HashMap[uint256, address])
balanceOf: public(HashMap[address, uint256])
getApproved: public(HashMap[uint256, address])
isApprovedForAll: public(HashMap[address, HashMap[address, bool]])


@deploy
def __init__(minter: address):
    self.minter = minter


@view
@external
def supportsInterface(interface_id: bytes4) -> bool:
    # ERC-165 and ERC-721.
    return interface_id in [0x01ffc9a7, 0x80ac58cd]


@external
def mint(receiver: address) -> uint256:
    assert msg.sender == self.minter, "only the minter mints"
    assert receiver != empty(address), "mint to the zero address"
    token_id: uint256 = self.totalSupply + 1
    self.totalSupply = token_id
    self.ownerOf[token_id] = receiver
    self.balanceOf[receiver] += 1
    log Transfer(sender=empty(address), receiver=receiver, token_id=token_id)
    return token_id


@external
def approve(approved: address, token_id: uint256):
    owner: address = self.ownerOf[token_id]
    assert msg.sender == owner or self.isApprovedForAll[owner][msg.sender], "not the owner or an operator"
    self.getApproved[token_id] = approved
    log Approval(owner=owner, approved=approved, token_id=token_id)


@external
def setApprovalForAll(operator: address, approved: bool):
    self.isApprovedForAll[msg.sender][operator] = approved
    log ApprovalForAll(owner=msg.sender, operator=operator, approved=approved)


@external
def transferFrom(owner: address, receiver: address, token_id: uint256):
    assert owner != empty(address) and self.ownerOf[token_id] == owner, "not the token's owner"
    assert msg.sender == owner or msg.sender == self.getApproved[token_id] or self.isApprovedForAll[owner][msg.sender], "not allowed"
    assert receiver != empty(address), "transfer to the zero address"
    self.getApproved[token_id] = empty(address)
    self.balanceOf[owner] -= 1
    self.balanceOf[receiver] += 1
    self.ownerOf[token_id] = receiver
    log Transfer(sender=owner, receiver=receiver, token_id=token_id)
