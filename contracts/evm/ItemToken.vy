# pragma version 0.4.3
# The marketplace rail's item token: an ERC-721 (with the metadata extension) whose every token
# remembers its artist, and an EIP-2981 royalty paid to that artist at a rate fixed at deployment.
#
# Rules (rails.md §2.1 names the failures they prevent):
# - Anyone may mint, to any receiver; the caller is the token's artist, recorded once at mint and
#   never changed: there is no function that sets an artist or picks a token id, so neither can be
#   overwritten by someone else.
# - Token ids are assigned here, sequentially from 1.
# - royaltyInfo(id, price) is (artist, price * royaltyBps // 10000), rounded down; the artist is kept
#   through every resale because it is stored on the token, by token id.

interface ERC721Receiver:
    def onERC721Received(operator: address, owner: address, token_id: uint256, data: Bytes[1024]) -> bytes4: nonpayable

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    tokenId: indexed(uint256)

event Approval:
    owner: indexed(address)
    approved: indexed(address)
    tokenId: indexed(uint256)

event ApprovalForAll:
    owner: indexed(address)
    operator: indexed(address)
    approved: bool

event Minted:
    tokenId: indexed(uint256)
    artist: indexed(address)
    uri: String[256]

# ERC-165, ERC-721, ERC-721 Metadata and EIP-2981 interface ids.
INTERFACE_IDS: constant(bytes4[4]) = [0x01ffc9a7, 0x80ac58cd, 0x5b5e139f, 0x2a55205a]
RECEIVED: constant(bytes4) = method_id("onERC721Received(address,address,uint256,bytes)", output_type=bytes4)
BPS: constant(uint256) = 10000

name: public(String[64])
symbol: public(String[32])
royaltyBps: public(uint256)
totalSupply: public(uint256)
isApprovedForAll: public(HashMap[address, HashMap[address, bool]])

owners: HashMap[uint256, address]
balances: HashMap[address, uint256]
approvals: HashMap[uint256, address]
artists: HashMap[uint256, address]
uris: HashMap[uint256, String[256]]


@deploy
def __init__(name: String[64], symbol: String[32], royalty_bps: uint256):
    assert royalty_bps <= BPS, "royalty above 100 %"
    self.name = name
    self.symbol = symbol
    self.royaltyBps = royalty_bps


@view
@external
def supportsInterface(interface_id: bytes4) -> bool:
    return interface_id in INTERFACE_IDS


@view
@internal
def _owner_of(token_id: uint256) -> address:
    owner: address = self.owners[token_id]
    assert owner != empty(address), "no such token"
    return owner


@view
@external
def ownerOf(tokenId: uint256) -> address:
    return self._owner_of(tokenId)


@view
@external
def balanceOf(owner: address) -> uint256:
    assert owner != empty(address), "the zero address owns nothing"
    return self.balances[owner]


@view
@external
def getApproved(tokenId: uint256) -> address:
    self._owner_of(tokenId)
    return self.approvals[tokenId]


@view
@external
def tokenURI(tokenId: uint256) -> String[256]:
    self._owner_of(tokenId)
    return self.uris[tokenId]


@view
@external
def artistOf(tokenId: uint256) -> address:
    self._owner_of(tokenId)
    return self.artists[tokenId]


@view
@external
def royaltyInfo(tokenId: uint256, salePrice: uint256) -> (address, uint256):
    self._owner_of(tokenId)
    return self.artists[tokenId], salePrice * self.royaltyBps // BPS


@external
def mint(to: address, uri: String[256]) -> uint256:
    assert to != empty(address), "mint to the zero address"
    token_id: uint256 = self.totalSupply + 1
    self.totalSupply = token_id
    self.owners[token_id] = to
    self.balances[to] += 1
    self.artists[token_id] = msg.sender
    self.uris[token_id] = uri
    log Transfer(sender=empty(address), receiver=to, tokenId=token_id)
    log Minted(tokenId=token_id, artist=msg.sender, uri=uri)
    return token_id


@external
def approve(approved: address, tokenId: uint256):
    owner: address = self._owner_of(tokenId)
    assert approved != owner, "approving the owner"
    assert msg.sender == owner or self.isApprovedForAll[owner][msg.sender], "not the owner or an operator"
    self.approvals[tokenId] = approved
    log Approval(owner=owner, approved=approved, tokenId=tokenId)


@external
def setApprovalForAll(operator: address, approved: bool):
    assert operator != msg.sender, "approving oneself"
    self.isApprovedForAll[msg.sender][operator] = approved
    log ApprovalForAll(owner=msg.sender, operator=operator, approved=approved)


@internal
def _transfer(owner: address, receiver: address, token_id: uint256):
    assert self._owner_of(token_id) == owner, "not the token's owner"
    assert (
        msg.sender == owner or msg.sender == self.approvals[token_id] or self.isApprovedForAll[owner][msg.sender]
    ), "not allowed to transfer"
    assert receiver != empty(address), "transfer to the zero address"
    self.approvals[token_id] = empty(address)
    self.balances[owner] -= 1
    self.balances[receiver] += 1
    self.owners[token_id] = receiver
    log Transfer(sender=owner, receiver=receiver, tokenId=token_id)


@external
def transferFrom(owner: address, receiver: address, tokenId: uint256):
    self._transfer(owner, receiver, tokenId)


# Both ERC-721 overloads (with and without data). The state is final before the receiver's hook
# runs, and a contract receiver must answer with the ERC-721 magic value.
@external
def safeTransferFrom(owner: address, receiver: address, tokenId: uint256, data: Bytes[1024] = b""):
    self._transfer(owner, receiver, tokenId)
    if receiver.is_contract:
        answer: bytes4 = extcall ERC721Receiver(receiver).onERC721Received(msg.sender, owner, tokenId, data)
        assert answer == RECEIVED, "the receiver refused the token"
