# pragma version 0.4.3
# The marketplace rail's sale contract: one shared contract for three formats of selling an
# ItemToken (escrow with deposits, English auction, direct sale). Listing ids count up from 1
# across the formats. contracts/evm/README.md has the state machines, the money split and the
# rules that replace the failures of rails.md §2.
#
# Money: nothing is pushed to anyone during a sale. Every payout (seller proceeds, royalty, platform
# fee, returned deposits, outbid amounts, refunds) is credited to pendingWithdrawal(account) and
# paid by withdraw(), which the account calls itself. A recipient that reverts on receiving ether
# therefore only blocks its own withdrawal, never a sale, an auction or anyone else's payout.
#
# Split of a sale at price P (escrow price, winning bid, direct price):
#   fee     = P * platformFeeBps // 10000                     (rounded down)
#   royalty = min(amount of token.royaltyInfo(tokenId, P), P - fee); 0 when its receiver is empty
#   seller  = P - fee - royalty                               (gets every rounding remainder)
#
# Every function that changes state holds the contract's reentrancy lock.

interface ItemToken:
    def ownerOf(tokenId: uint256) -> address: view
    def getApproved(tokenId: uint256) -> address: view
    def isApprovedForAll(owner: address, operator: address) -> bool: view
    def royaltyInfo(tokenId: uint256, salePrice: uint256) -> (address, uint256): view
    def transferFrom(owner: address, receiver: address, tokenId: uint256): nonpayable

# Listing kinds.
ESCROW: constant(uint8) = 1
AUCTION: constant(uint8) = 2
SALE: constant(uint8) = 3

# Listing states (one numbering for every kind; 0 is "no such listing").
OPEN: constant(uint8) = 1  # escrow created, auction running, sale listed
LOCKED: constant(uint8) = 2  # escrow: the buyer has paid price and deposit
TRANSFERRED: constant(uint8) = 3  # escrow: the token has moved to the buyer
COMPLETED: constant(uint8) = 4  # escrow received, auction ended, sale sold
CANCELLED: constant(uint8) = 5  # escrow aborted, auction cancelled, sale cancelled
REFUNDED: constant(uint8) = 6  # escrow: the seller missed the delivery deadline

BPS: constant(uint256) = 10000
# A bid closer than this to the end moves the end to the bid's time plus this.
EXTENSION_WINDOW: public(constant(uint256)) = 300
# After paying, an escrow buyer may take everything back (and the seller's deposit) when the token
# has not been transferred within this time.
DELIVERY_PERIOD: public(constant(uint256)) = 7 * 86400

struct Listing:
    kind: uint8
    state: uint8
    seller: address
    buyer: address  # escrow buyer, auction highest bidder, sale buyer
    tokenId: uint256
    price: uint256  # escrow price, auction reserve, sale price
    highestBid: uint256  # auction only
    deadline: uint256  # auction end time; escrow delivery deadline once paid

event EscrowCreated:
    listingId: indexed(uint256)
    seller: indexed(address)
    tokenId: indexed(uint256)
    price: uint256

event PurchaseConfirmed:
    listingId: indexed(uint256)
    buyer: indexed(address)
    deadline: uint256

event ItemTransferred:
    listingId: indexed(uint256)
    seller: indexed(address)
    buyer: indexed(address)

event ItemReceived:
    listingId: indexed(uint256)
    buyer: indexed(address)

event EscrowAborted:
    listingId: indexed(uint256)

event EscrowRefunded:
    listingId: indexed(uint256)
    buyer: indexed(address)
    amount: uint256

event AuctionCreated:
    listingId: indexed(uint256)
    seller: indexed(address)
    tokenId: indexed(uint256)
    reserve: uint256
    endTime: uint256

event BidPlaced:
    listingId: indexed(uint256)
    bidder: indexed(address)
    amount: uint256

event AuctionExtended:
    listingId: indexed(uint256)
    endTime: uint256

event AuctionEnded:
    listingId: indexed(uint256)
    winner: indexed(address)
    amount: uint256

event AuctionCancelled:
    listingId: indexed(uint256)

event Listed:
    listingId: indexed(uint256)
    seller: indexed(address)
    tokenId: indexed(uint256)
    price: uint256

event Sold:
    listingId: indexed(uint256)
    buyer: indexed(address)
    price: uint256

event ListingCancelled:
    listingId: indexed(uint256)

event Settled:
    listingId: indexed(uint256)
    price: uint256
    royalty: uint256
    fee: uint256
    sellerProceeds: uint256

event Withdrawn:
    account: indexed(address)
    amount: uint256

token: public(address)
platform: public(address)
platformFeeBps: public(uint256)
listingCount: public(uint256)
# The latest open listing of a token (0 when none): an owner lists a token at most once at a time.
activeListing: public(HashMap[uint256, uint256])

listings: HashMap[uint256, Listing]
pending: HashMap[address, uint256]


@deploy
def __init__(token: address, platform: address, platform_fee_bps: uint256):
    assert token != empty(address) and platform != empty(address), "empty address"
    assert platform_fee_bps <= BPS, "fee above 100 %"
    self.token = token
    self.platform = platform
    self.platformFeeBps = platform_fee_bps


@view
@external
def listing(listingId: uint256) -> Listing:
    return self.listings[listingId]


@view
@external
def pendingWithdrawal(account: address) -> uint256:
    return self.pending[account]


@view
@internal
def _listing(listing_id: uint256, kind: uint8) -> Listing:
    entry: Listing = self.listings[listing_id]
    assert entry.kind == kind, "no such listing of this kind"
    return entry


@internal
def _new_listing(kind: uint8, token_id: uint256, price: uint256, deadline: uint256) -> uint256:
    # The caller has checked that msg.sender owns the token. An open listing of it by someone else
    # is an escrow of a former owner, which can no longer be bought; it does not block the owner.
    active: uint256 = self.activeListing[token_id]
    assert active == 0 or self.listings[active].seller != msg.sender, "the token is already listed"
    listing_id: uint256 = self.listingCount + 1
    self.listingCount = listing_id
    self.listings[listing_id] = Listing(
        kind=kind,
        state=OPEN,
        seller=msg.sender,
        buyer=empty(address),
        tokenId=token_id,
        price=price,
        highestBid=0,
        deadline=deadline,
    )
    self.activeListing[token_id] = listing_id
    return listing_id


@internal
def _close(listing_id: uint256, token_id: uint256, state: uint8):
    self.listings[listing_id].state = state
    if self.activeListing[token_id] == listing_id:
        self.activeListing[token_id] = 0


@view
@internal
def _require_owner_and_approval(owner: address, token_id: uint256):
    assert staticcall ItemToken(self.token).ownerOf(token_id) == owner, "the seller does not own the token"
    assert (
        staticcall ItemToken(self.token).getApproved(token_id) == self
        or staticcall ItemToken(self.token).isApprovedForAll(owner, self)
    ), "the marketplace is not approved for the token"


@internal
def _credit(account: address, amount: uint256):
    if amount > 0:
        self.pending[account] += amount


# Credits the split of a sale at `price` of `token_id` (see the header) and returns the seller's part.
@internal
def _settle(listing_id: uint256, seller: address, token_id: uint256, price: uint256) -> uint256:
    fee: uint256 = price * self.platformFeeBps // BPS
    artist: address = empty(address)
    royalty: uint256 = 0
    artist, royalty = staticcall ItemToken(self.token).royaltyInfo(token_id, price)
    if artist == empty(address):
        royalty = 0
    royalty = min(royalty, price - fee)
    proceeds: uint256 = price - fee - royalty
    self._credit(self.platform, fee)
    self._credit(artist, royalty)
    self._credit(seller, proceeds)
    log Settled(listingId=listing_id, price=price, royalty=royalty, fee=fee, sellerProceeds=proceeds)
    return proceeds


@external
@nonreentrant
def withdraw():
    amount: uint256 = self.pending[msg.sender]
    assert amount > 0, "nothing to withdraw"
    self.pending[msg.sender] = 0
    # A failed payment reverts the whole call, so the credit stays for a later try.
    raw_call(msg.sender, b"", value=amount)
    log Withdrawn(account=msg.sender, amount=amount)


# ---------------------------------------------------------------------------------------------
# Escrow. The seller deposits the price (msg.value == price) and keeps the token; the buyer pays
# twice the price (the price and an equal deposit). The seller then moves the token to the buyer
# through the marketplace, and the buyer confirms receipt, which settles: the seller gets the
# proceeds and the deposit back, the buyer the deposit back.
#   OPEN --confirmPurchase--> LOCKED --transferItem--> TRANSFERRED --confirmReceived--> COMPLETED
#   OPEN --abort--> CANCELLED;   LOCKED --refundEscrow (after the deadline)--> REFUNDED

@external
@payable
@nonreentrant
def createEscrow(tokenId: uint256, price: uint256) -> uint256:
    assert price > 0, "price is zero"
    assert msg.value == price, "the seller's deposit must equal the price"
    self._require_owner_and_approval(msg.sender, tokenId)
    listing_id: uint256 = self._new_listing(ESCROW, tokenId, price, 0)
    log EscrowCreated(listingId=listing_id, seller=msg.sender, tokenId=tokenId, price=price)
    return listing_id


@external
@payable
@nonreentrant
def confirmPurchase(listingId: uint256):
    entry: Listing = self._listing(listingId, ESCROW)
    assert entry.state == OPEN, "not open for purchase"
    assert msg.sender != entry.seller, "the seller cannot buy"
    assert msg.value == 2 * entry.price, "payment must be twice the price"
    # The buyer pays only while the seller can still deliver.
    self._require_owner_and_approval(entry.seller, entry.tokenId)
    deadline: uint256 = block.timestamp + DELIVERY_PERIOD
    self.listings[listingId].state = LOCKED
    self.listings[listingId].buyer = msg.sender
    self.listings[listingId].deadline = deadline
    log PurchaseConfirmed(listingId=listingId, buyer=msg.sender, deadline=deadline)


@external
@nonreentrant
def transferItem(listingId: uint256):
    entry: Listing = self._listing(listingId, ESCROW)
    assert entry.state == LOCKED, "not paid for"
    assert msg.sender == entry.seller, "only the seller transfers"
    self.listings[listingId].state = TRANSFERRED
    extcall ItemToken(self.token).transferFrom(entry.seller, entry.buyer, entry.tokenId)
    log ItemTransferred(listingId=listingId, seller=entry.seller, buyer=entry.buyer)


@external
@nonreentrant
def confirmReceived(listingId: uint256):
    entry: Listing = self._listing(listingId, ESCROW)
    assert entry.state == TRANSFERRED, "the item has not been transferred"
    assert msg.sender == entry.buyer, "only the buyer confirms"
    self._close(listingId, entry.tokenId, COMPLETED)
    self._settle(listingId, entry.seller, entry.tokenId, entry.price)
    self._credit(entry.seller, entry.price)  # the seller's deposit
    self._credit(entry.buyer, entry.price)  # the buyer's deposit
    log ItemReceived(listingId=listingId, buyer=msg.sender)


@external
@nonreentrant
def abort(listingId: uint256):
    entry: Listing = self._listing(listingId, ESCROW)
    assert msg.sender == entry.seller, "only the seller aborts"
    assert entry.state == OPEN, "already purchased or closed"
    self._close(listingId, entry.tokenId, CANCELLED)
    self._credit(entry.seller, entry.price)
    log EscrowAborted(listingId=listingId)


# Buyer protection: the seller has not transferred the token by the deadline. The buyer gets the
# payment, the own deposit and the seller's deposit (3 × price).
@external
@nonreentrant
def refundEscrow(listingId: uint256):
    entry: Listing = self._listing(listingId, ESCROW)
    assert entry.state == LOCKED, "not awaiting delivery"
    assert msg.sender == entry.buyer, "only the buyer takes a refund"
    assert block.timestamp >= entry.deadline, "the delivery deadline has not passed"
    self._close(listingId, entry.tokenId, REFUNDED)
    self._credit(entry.buyer, 3 * entry.price)
    log EscrowRefunded(listingId=listingId, buyer=msg.sender, amount=3 * entry.price)


# ---------------------------------------------------------------------------------------------
# English auction. The token moves into the marketplace at creation. The first bid must be at
# least the reserve, every later bid strictly more than the highest (1 wei is the least increment);
# bids are taken while block.timestamp < endTime. An outbid amount is credited to its bidder.
#   OPEN --endAuction (timestamp >= endTime)--> COMPLETED;   OPEN --cancelAuction (no bid)--> CANCELLED

@external
@nonreentrant
def createAuction(tokenId: uint256, reserve: uint256, endTime: uint256) -> uint256:
    assert reserve > 0, "reserve is zero"
    assert endTime > block.timestamp, "the end is not in the future"
    self._require_owner_and_approval(msg.sender, tokenId)
    listing_id: uint256 = self._new_listing(AUCTION, tokenId, reserve, endTime)
    extcall ItemToken(self.token).transferFrom(msg.sender, self, tokenId)
    log AuctionCreated(listingId=listing_id, seller=msg.sender, tokenId=tokenId, reserve=reserve, endTime=endTime)
    return listing_id


@external
@payable
@nonreentrant
def bid(listingId: uint256):
    entry: Listing = self._listing(listingId, AUCTION)
    assert entry.state == OPEN, "the auction is closed"
    assert block.timestamp < entry.deadline, "the auction has ended"
    assert msg.sender != entry.seller, "the seller cannot bid"
    assert msg.value >= entry.price, "below the reserve"
    assert msg.value > entry.highestBid, "not above the highest bid"
    self._credit(entry.buyer, entry.highestBid)
    self.listings[listingId].buyer = msg.sender
    self.listings[listingId].highestBid = msg.value
    log BidPlaced(listingId=listingId, bidder=msg.sender, amount=msg.value)
    if entry.deadline - block.timestamp < EXTENSION_WINDOW:
        end_time: uint256 = block.timestamp + EXTENSION_WINDOW
        self.listings[listingId].deadline = end_time
        log AuctionExtended(listingId=listingId, endTime=end_time)


@external
@nonreentrant
def endAuction(listingId: uint256):
    entry: Listing = self._listing(listingId, AUCTION)
    assert entry.state == OPEN, "the auction is closed"
    assert block.timestamp >= entry.deadline, "the auction is still running"
    self._close(listingId, entry.tokenId, COMPLETED)
    # transferFrom, not safeTransferFrom: a winner's contract cannot refuse the token and so
    # cannot hold up the end of the auction.
    if entry.buyer == empty(address):
        extcall ItemToken(self.token).transferFrom(self, entry.seller, entry.tokenId)
    else:
        extcall ItemToken(self.token).transferFrom(self, entry.buyer, entry.tokenId)
        self._settle(listingId, entry.seller, entry.tokenId, entry.highestBid)
    log AuctionEnded(listingId=listingId, winner=entry.buyer, amount=entry.highestBid)


@external
@nonreentrant
def cancelAuction(listingId: uint256):
    entry: Listing = self._listing(listingId, AUCTION)
    assert msg.sender == entry.seller, "only the seller cancels"
    assert entry.state == OPEN, "the auction is closed"
    assert entry.buyer == empty(address), "the auction has a bid"
    self._close(listingId, entry.tokenId, CANCELLED)
    extcall ItemToken(self.token).transferFrom(self, entry.seller, entry.tokenId)
    log AuctionCancelled(listingId=listingId)


# ---------------------------------------------------------------------------------------------
# Direct sale. The token moves into the marketplace when listed, so a listing can always be
# bought; buy moves the token to the buyer and credits the split in the same transaction.
#   OPEN --buy--> COMPLETED;   OPEN --cancelListing--> CANCELLED

@external
@nonreentrant
def listForSale(tokenId: uint256, price: uint256) -> uint256:
    assert price > 0, "price is zero"
    self._require_owner_and_approval(msg.sender, tokenId)
    listing_id: uint256 = self._new_listing(SALE, tokenId, price, 0)
    extcall ItemToken(self.token).transferFrom(msg.sender, self, tokenId)
    log Listed(listingId=listing_id, seller=msg.sender, tokenId=tokenId, price=price)
    return listing_id


@external
@payable
@nonreentrant
def buy(listingId: uint256):
    entry: Listing = self._listing(listingId, SALE)
    assert entry.state == OPEN, "not for sale"
    assert msg.sender != entry.seller, "the seller cannot buy"
    assert msg.value == entry.price, "payment must equal the price"
    self._close(listingId, entry.tokenId, COMPLETED)
    self.listings[listingId].buyer = msg.sender
    extcall ItemToken(self.token).transferFrom(self, msg.sender, entry.tokenId)
    self._settle(listingId, entry.seller, entry.tokenId, entry.price)
    log Sold(listingId=listingId, buyer=msg.sender, price=entry.price)


@external
@nonreentrant
def cancelListing(listingId: uint256):
    entry: Listing = self._listing(listingId, SALE)
    assert msg.sender == entry.seller, "only the seller cancels"
    assert entry.state == OPEN, "not for sale"
    self._close(listingId, entry.tokenId, CANCELLED)
    extcall ItemToken(self.token).transferFrom(self, entry.seller, entry.tokenId)
    log ListingCancelled(listingId=listingId)
