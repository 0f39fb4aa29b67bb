"""Marketplace.vy, English auction: custody of the token, bidding rules, the anti-sniping
extension, the end and its split, cancellation, and bidders that refuse payment or reenter."""
import boa
import pytest
from conftest import AUCTION, CANCELLED, COMPLETED, OPEN, account, events, mint, split, withdraw

RESERVE = 10_001
DURATION = 3600
WINDOW = 300


@pytest.fixture
def item(token, market, artist, seller):
    mint(token, artist, seller)
    token.approve(market.address, 1, sender=seller)
    return 1


@pytest.fixture
def end_time():
    return boa.env.timestamp + DURATION


@pytest.fixture
def auction(market, item, seller, end_time):
    return market.createAuction(item, RESERVE, end_time, sender=seller)


@pytest.fixture
def bidder2():
    return account("bidder2")


def test_create_takes_the_token_into_custody(market, token, item, seller, end_time):
    listing_id = market.createAuction(item, RESERVE, end_time, sender=seller)
    (event,) = events(market, "AuctionCreated")
    assert (event.listingId, event.seller, event.tokenId, event.reserve, event.endTime) == (
        listing_id, seller, item, RESERVE, end_time)
    assert token.ownerOf(item) == market.address
    entry = market.listing(listing_id)
    assert (entry.kind, entry.state, entry.seller, entry.price, entry.deadline, entry.highestBid) == (
        AUCTION, OPEN, seller, RESERVE, end_time, 0)


def test_create_refusals(market, token, artist, item, seller, stranger, end_time):
    with boa.reverts("reserve is zero"):
        market.createAuction(item, 0, end_time, sender=seller)
    with boa.reverts("the end is not in the future"):
        market.createAuction(item, RESERVE, boa.env.timestamp, sender=seller)
    with boa.reverts("the seller does not own the token"):
        market.createAuction(item, RESERVE, end_time, sender=stranger)
    mint(token, artist, seller)
    with boa.reverts("the marketplace is not approved for the token"):
        market.createAuction(2, RESERVE, end_time, sender=seller)


# §2.3: bids had to be strictly above startingBid while the app allowed equal ones. Here the
# first bid must be at least the reserve (equal is accepted), and each later bid strictly above
# the highest (the least increment is 1 wei).
def test_first_bid_at_the_reserve_is_accepted_and_below_is_refused(market, auction, buyer):
    with boa.reverts("below the reserve"):
        market.bid(auction, value=RESERVE - 1, sender=buyer)
    market.bid(auction, value=RESERVE, sender=buyer)
    (event,) = events(market, "BidPlaced")
    assert (event.listingId, event.bidder, event.amount) == (auction, buyer, RESERVE)
    entry = market.listing(auction)
    assert (entry.buyer, entry.highestBid) == (buyer, RESERVE)


def test_a_bid_must_beat_the_highest_and_the_outbid_amount_is_credited(market, auction, buyer, bidder2):
    market.bid(auction, value=RESERVE + 5, sender=buyer)
    with boa.reverts("not above the highest bid"):
        market.bid(auction, value=RESERVE + 5, sender=bidder2)
    market.bid(auction, value=RESERVE + 6, sender=bidder2)
    assert market.pendingWithdrawal(buyer) == RESERVE + 5
    assert market.listing(auction).buyer == bidder2
    assert withdraw(market, buyer) == RESERVE + 5
    assert boa.env.get_balance(market.address) == RESERVE + 6


def test_the_highest_bidder_may_raise_the_own_bid(market, auction, buyer):
    market.bid(auction, value=RESERVE, sender=buyer)
    market.bid(auction, value=RESERVE + 1, sender=buyer)
    assert market.pendingWithdrawal(buyer) == RESERVE
    assert market.listing(auction).highestBid == RESERVE + 1


# §2.3: the beneficiary could bid on the own auction (and so drive the price up).
def test_the_seller_cannot_bid(market, auction, seller):
    with boa.reverts("the seller cannot bid"):
        market.bid(auction, value=RESERVE, sender=seller)


# §2.3: bid accepted now <= endTime and auctionEnd now >= endTime, so both were possible in the
# same second. Here bids stop at endTime and the end starts there.
def test_bids_stop_exactly_at_the_end_time_when_ending_starts(market, auction, buyer, stranger, end_time):
    boa.env.timestamp = end_time - 1
    with boa.reverts("the auction is still running"):
        market.endAuction(auction, sender=stranger)
    boa.env.timestamp = end_time
    with boa.reverts("the auction has ended"):
        market.bid(auction, value=RESERVE, sender=buyer)
    market.endAuction(auction, sender=stranger)


def test_a_late_bid_extends_the_end(market, auction, buyer, bidder2, end_time):
    assert market.EXTENSION_WINDOW() == WINDOW
    boa.env.timestamp = end_time - WINDOW  # exactly the window away: no extension
    market.bid(auction, value=RESERVE, sender=buyer)
    assert not events(market, "AuctionExtended")
    assert market.listing(auction).deadline == end_time
    boa.env.timestamp = end_time - 100
    market.bid(auction, value=RESERVE + 1, sender=bidder2)
    (event,) = events(market, "AuctionExtended")
    assert (event.listingId, event.endTime) == (auction, end_time - 100 + WINDOW)
    assert market.listing(auction).deadline == end_time + 200
    # The old end has passed, the auction goes on; another late bid extends it again.
    boa.env.timestamp = end_time + 199
    market.bid(auction, value=RESERVE + 2, sender=buyer)
    assert market.listing(auction).deadline == end_time + 199 + WINDOW
    with boa.reverts("the auction is still running"):
        market.endAuction(auction, sender=buyer)
    boa.env.timestamp = end_time + 199 + WINDOW
    market.endAuction(auction, sender=buyer)


def test_end_gives_the_token_to_the_winner_and_credits_the_split(market, token, auction, item, seller, buyer, bidder2, stranger, artist, platform, end_time):
    market.bid(auction, value=RESERVE, sender=buyer)
    winning = 123_456_789
    market.bid(auction, value=winning, sender=bidder2)
    boa.env.timestamp = end_time
    market.endAuction(auction, sender=stranger)  # anyone may end it
    (ended,) = events(market, "AuctionEnded")
    assert (ended.listingId, ended.winner, ended.amount) == (auction, bidder2, winning)
    fee, royalty, proceeds = split(winning)
    assert (fee, royalty, proceeds) == (3_086_419, 9_259_259, 111_111_111)
    assert token.ownerOf(item) == bidder2
    assert market.listing(auction).state == COMPLETED
    assert market.activeListing(item) == 0
    assert market.pendingWithdrawal(seller) == proceeds
    assert market.pendingWithdrawal(artist) == royalty
    assert market.pendingWithdrawal(platform) == fee
    assert market.pendingWithdrawal(buyer) == RESERVE
    assert market.pendingWithdrawal(bidder2) == 0
    total = sum(withdraw(market, who) for who in (seller, artist, platform, buyer))
    assert total == winning + RESERVE and boa.env.get_balance(market.address) == 0


def test_an_auction_ends_once_and_takes_no_bid_after(market, auction, buyer, end_time):
    market.bid(auction, value=RESERVE, sender=buyer)
    boa.env.timestamp = end_time
    market.endAuction(auction, sender=buyer)
    with boa.reverts("the auction is closed"):
        market.endAuction(auction, sender=buyer)
    with boa.reverts("the auction is closed"):
        market.bid(auction, value=RESERVE + 1, sender=buyer)


def test_an_auction_without_bids_returns_the_token(market, token, auction, item, seller, stranger, end_time):
    boa.env.timestamp = end_time
    market.endAuction(auction, sender=stranger)
    (ended,) = events(market, "AuctionEnded")
    assert (ended.winner, ended.amount) == ("0x0000000000000000000000000000000000000000", 0)
    assert not events(market, "Settled")
    assert token.ownerOf(item) == seller
    assert market.pendingWithdrawal(seller) == 0


def test_seller_cancels_without_bids(market, token, auction, item, seller, buyer, stranger):
    with boa.reverts("only the seller cancels"):
        market.cancelAuction(auction, sender=stranger)
    market.cancelAuction(auction, sender=seller)
    (event,) = events(market, "AuctionCancelled")
    assert event.listingId == auction
    assert token.ownerOf(item) == seller
    assert market.listing(auction).state == CANCELLED
    with boa.reverts("the auction is closed"):
        market.bid(auction, value=RESERVE, sender=buyer)
    with boa.reverts("the auction is closed"):
        market.cancelAuction(auction, sender=seller)


def test_no_cancel_once_there_is_a_bid(market, auction, seller, buyer):
    market.bid(auction, value=RESERVE, sender=buyer)
    with boa.reverts("the auction has a bid"):
        market.cancelAuction(auction, sender=seller)


# §2.3: createAuction stored the artist under the uid (updateArtist(uid, …)), not the token id,
# so royalties went to whoever was stored under that number, or to address(0). Here listing 1
# sells token 2, and the royalty goes to token 2's artist, not to token 1's.
def test_royalty_goes_to_the_tokens_artist_not_one_keyed_by_the_listing_id(market, token, seller, buyer, stranger, artist, end_time):
    mint(token, stranger, stranger)  # token 1, artist stranger
    mint(token, artist, seller)  # token 2, artist artist
    token.approve(market.address, 2, sender=seller)
    listing_id = market.createAuction(2, RESERVE, end_time, sender=seller)
    assert listing_id == 1
    market.bid(listing_id, value=50_000, sender=buyer)
    boa.env.timestamp = end_time
    market.endAuction(listing_id, sender=buyer)
    fee, royalty, _ = split(50_000)
    assert market.pendingWithdrawal(artist) == royalty
    assert market.pendingWithdrawal(stranger) == 0


# §2.3: getTheHighestBid could only be called by the beneficiary, so the artist's and platform's
# shares waited on the seller. Here ending (by anyone) credits every share at once.
def test_the_shares_do_not_wait_for_the_seller(market, auction, buyer, stranger, artist, platform, end_time):
    market.bid(auction, value=RESERVE, sender=buyer)
    boa.env.timestamp = end_time
    market.endAuction(auction, sender=stranger)
    fee, royalty, _ = split(RESERVE)
    assert withdraw(market, artist) == royalty
    assert withdraw(market, platform) == fee


# §2.3's withdraw used send() and reported failure by returning false. Here payouts are credits;
# a bidder contract refusing ether does not hold up the auction or anyone else's withdrawal, and
# its own failed withdrawal reverts with its credit kept.
def test_a_bidder_refusing_ether_blocks_nobody(market, token, auction, item, make_actor, buyer, seller, end_time):
    actor = make_actor()
    actor.setRefuseEther(True)
    actor.execute(market.address, market.bid.prepare_calldata(auction), RESERVE)
    market.bid(auction, value=RESERVE + 1, sender=buyer)  # outbids the refusing bidder
    assert market.pendingWithdrawal(actor.address) == RESERVE
    boa.env.timestamp = end_time
    market.endAuction(auction, sender=seller)
    assert token.ownerOf(item) == buyer
    fee, royalty, proceeds = split(RESERVE + 1)
    assert withdraw(market, seller) == proceeds
    with boa.reverts():
        actor.execute(market.address, market.withdraw.prepare_calldata(), 0)
    assert market.pendingWithdrawal(actor.address) == RESERVE


def test_a_seller_refusing_ether_does_not_block_the_end(market, token, make_actor, artist, buyer, platform, end_time):
    actor = make_actor()
    actor.setRefuseEther(True)
    mint(token, artist, actor.address)
    actor.execute(token.address, token.approve.prepare_calldata(market.address, 1), 0)
    actor.execute(market.address, market.createAuction.prepare_calldata(1, RESERVE, end_time), 0)
    market.bid(1, value=RESERVE, sender=buyer)
    boa.env.timestamp = end_time
    market.endAuction(1, sender=buyer)
    assert token.ownerOf(1) == buyer
    fee, _, proceeds = split(RESERVE)
    assert withdraw(market, platform) == fee
    assert market.pendingWithdrawal(actor.address) == proceeds


def test_the_winner_gets_the_token_without_a_receiver_hook_call(market, token, auction, item, make_actor, end_time):
    # The token moves with transferFrom, so no receiver hook can refuse it and hold up the end.
    actor = make_actor()
    actor.setHook(token.address, b"\xff")  # any hook call would revert inside; it must not be made
    actor.execute(market.address, market.bid.prepare_calldata(auction), RESERVE)
    boa.env.timestamp = end_time
    market.endAuction(auction, sender=actor.address)
    assert token.ownerOf(item) == actor.address
    assert actor.hookCalls() == 0


# The lock is what stops it: the same bid made from the withdrawal's payment fails, and succeeds
# once made outside it.
def test_an_outbid_bidder_cannot_bid_again_from_inside_its_withdrawal(market, auction, make_actor, buyer):
    actor = make_actor()
    actor.execute(market.address, market.bid.prepare_calldata(auction), RESERVE)
    market.bid(auction, value=RESERVE + 1, sender=buyer)
    actor.setHook(market.address, market.bid.prepare_calldata(auction), RESERVE + 2)
    actor.execute(market.address, market.withdraw.prepare_calldata(), 0)
    assert actor.hookCalls() == 1 and actor.hookSuccesses() == 0
    assert actor.received() == RESERVE
    assert market.listing(auction).buyer == buyer
    actor.setHook(market.address, b"")
    actor.execute(market.address, market.bid.prepare_calldata(auction), RESERVE + 2)
    assert market.listing(auction).buyer == actor.address


def test_bidding_on_an_unknown_or_other_listing_is_refused(market, buyer):
    with boa.reverts("no such listing of this kind"):
        market.bid(7, value=RESERVE, sender=buyer)
    with boa.reverts("no such listing of this kind"):
        market.endAuction(7, sender=buyer)
