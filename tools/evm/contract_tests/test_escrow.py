"""Marketplace.vy, escrow: deposits, the on-chain token transfer, confirmation, abort, the buyer's
refund after the delivery deadline, and the exact payout."""
import boa
import pytest
from conftest import CANCELLED, COMPLETED, ESCROW, LOCKED, OPEN, REFUNDED, TRANSFERRED, events, mint, split, withdraw

PRICE = 1_000_003  # odd, so every share rounds
DELIVERY_PERIOD = 7 * 86400


@pytest.fixture
def item(token, market, artist, seller):
    """Token 1, made by `artist`, owned by `seller`, the marketplace approved for it."""
    mint(token, artist, seller)
    token.approve(market.address, 1, sender=seller)
    return 1


@pytest.fixture
def escrow(market, item, seller):
    return market.createEscrow(item, PRICE, value=PRICE, sender=seller)


@pytest.fixture
def purchased(market, escrow, buyer):
    market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    return escrow


@pytest.fixture
def transferred(market, purchased, seller):
    market.transferItem(purchased, sender=seller)
    return purchased


def test_create_records_the_listing_and_holds_the_deposit(market, token, item, seller):
    listing_id = market.createEscrow(item, PRICE, value=PRICE, sender=seller)
    (event,) = events(market, "EscrowCreated")
    assert (event.listingId, event.seller, event.tokenId, event.price) == (1, seller, item, PRICE)
    assert listing_id == 1 and market.listingCount() == 1
    entry = market.listing(1)
    assert (entry.kind, entry.state, entry.seller, entry.tokenId, entry.price) == (ESCROW, OPEN, seller, item, PRICE)
    assert market.activeListing(item) == 1
    assert boa.env.get_balance(market.address) == PRICE
    assert token.ownerOf(item) == seller  # the seller keeps the token until it is sold


# §2.2: the seller sent 2P and the contract took value = msg.value / 2 as the price. Here the
# deposit is the price itself, and any other amount is refused.
@pytest.mark.parametrize("deposit", [0, PRICE - 1, PRICE + 1, 2 * PRICE])
def test_seller_deposit_must_equal_the_price(market, item, seller, deposit):
    with boa.reverts("the seller's deposit must equal the price"):
        market.createEscrow(item, PRICE, value=deposit, sender=seller)


def test_create_refusals(market, token, artist, item, seller, stranger):
    with boa.reverts("price is zero"):
        market.createEscrow(item, 0, sender=seller)
    with boa.reverts("the seller does not own the token"):
        market.createEscrow(item, PRICE, value=PRICE, sender=stranger)
    mint(token, artist, seller)  # token 2, not approved
    with boa.reverts("the marketplace is not approved for the token"):
        market.createEscrow(2, PRICE, value=PRICE, sender=seller)
    token.setApprovalForAll(market.address, True, sender=seller)
    assert market.createEscrow(2, PRICE, value=PRICE, sender=seller) == 1


def test_the_same_seller_cannot_list_a_token_twice(market, escrow, item, seller):
    with boa.reverts("the token is already listed"):
        market.createEscrow(item, PRICE, value=PRICE, sender=seller)
    with boa.reverts("the token is already listed"):
        market.listForSale(item, PRICE, sender=seller)


def test_purchase_locks_the_escrow(market, escrow, buyer):
    market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    (event,) = events(market, "PurchaseConfirmed")
    now = boa.env.timestamp
    assert (event.listingId, event.buyer, event.deadline) == (escrow, buyer, now + DELIVERY_PERIOD)
    entry = market.listing(escrow)
    assert (entry.state, entry.buyer, entry.deadline) == (LOCKED, buyer, now + DELIVERY_PERIOD)
    assert boa.env.get_balance(market.address) == 3 * PRICE
    assert market.DELIVERY_PERIOD() == DELIVERY_PERIOD


@pytest.mark.parametrize("payment", [0, PRICE, 2 * PRICE - 1, 2 * PRICE + 1, 3 * PRICE])
def test_purchase_must_pay_twice_the_price(market, escrow, buyer, payment):
    with boa.reverts("payment must be twice the price"):
        market.confirmPurchase(escrow, value=payment, sender=buyer)


# §2.2: confirmPurchase had no check of the buyer, so a seller could buy the own item.
def test_seller_cannot_buy_the_own_escrow(market, escrow, seller):
    with boa.reverts("the seller cannot buy"):
        market.confirmPurchase(escrow, value=2 * PRICE, sender=seller)


def test_two_buyers_racing_the_second_reverts_and_keeps_its_ether(market, escrow, buyer, stranger):
    market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    before = boa.env.get_balance(stranger)
    with boa.reverts("not open for purchase"):
        market.confirmPurchase(escrow, value=2 * PRICE, sender=stranger)
    assert boa.env.get_balance(stranger) == before
    assert market.listing(escrow).buyer == buyer
    assert market.pendingWithdrawal(stranger) == 0
    assert boa.env.get_balance(market.address) == 3 * PRICE


def test_purchase_is_refused_when_the_seller_can_no_longer_deliver(market, token, escrow, item, seller, buyer, stranger):
    token.approve(stranger, item, sender=seller)  # replaces the marketplace's approval
    with boa.reverts("the marketplace is not approved for the token"):
        market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    token.transferFrom(seller, stranger, item, sender=seller)
    with boa.reverts("the seller does not own the token"):
        market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)


def test_purchase_refused_on_unknown_or_other_kinds(market, token, artist, seller, buyer):
    with boa.reverts("no such listing of this kind"):
        market.confirmPurchase(1, value=2 * PRICE, sender=buyer)
    mint(token, artist, seller)
    token.approve(market.address, 1, sender=seller)
    sale = market.listForSale(1, PRICE, sender=seller)
    with boa.reverts("no such listing of this kind"):
        market.confirmPurchase(sale, value=2 * PRICE, sender=buyer)


def test_transfer_moves_the_token_on_chain(market, token, purchased, item, seller, buyer):
    market.transferItem(purchased, sender=seller)
    (event,) = events(market, "ItemTransferred")
    assert (event.listingId, event.seller, event.buyer) == (purchased, seller, buyer)
    assert token.ownerOf(item) == buyer
    assert market.listing(purchased).state == TRANSFERRED


def test_transfer_refusals(market, escrow, buyer, seller, stranger):
    with boa.reverts("not paid for"):
        market.transferItem(escrow, sender=seller)
    market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    for who in (buyer, stranger):
        with boa.reverts("only the seller transfers"):
            market.transferItem(escrow, sender=who)
    market.transferItem(escrow, sender=seller)
    with boa.reverts("not paid for"):
        market.transferItem(escrow, sender=seller)


# §2.2: the token transfer was not enforced on-chain and the buyer could confirm without it. Here
# confirmReceived is refused until transferItem has moved the token.
def test_receipt_requires_the_token_transfer(market, purchased, buyer):
    with boa.reverts("the item has not been transferred"):
        market.confirmReceived(purchased, sender=buyer)


def test_only_the_buyer_confirms_receipt(market, transferred, seller, stranger):
    for who in (seller, stranger):
        with boa.reverts("only the buyer confirms"):
            market.confirmReceived(transferred, sender=who)


def test_receipt_settles_the_exact_split(market, transferred, item, seller, buyer, artist, platform):
    market.confirmReceived(transferred, sender=buyer)
    (received,) = events(market, "ItemReceived")
    (settled,) = events(market, "Settled")
    fee, royalty, proceeds = split(PRICE)
    assert (fee, royalty, proceeds) == (25_000, 75_000, 900_003)
    assert (received.listingId, received.buyer) == (transferred, buyer)
    assert (settled.price, settled.royalty, settled.fee, settled.sellerProceeds) == (PRICE, royalty, fee, proceeds)
    assert market.listing(transferred).state == COMPLETED
    assert market.activeListing(item) == 0
    assert market.pendingWithdrawal(seller) == proceeds + PRICE  # proceeds and the deposit back
    assert market.pendingWithdrawal(buyer) == PRICE  # the buyer's deposit back
    assert market.pendingWithdrawal(artist) == royalty
    assert market.pendingWithdrawal(platform) == fee
    paid = sum(withdraw(market, who) for who in (seller, buyer, artist, platform))
    assert paid == 3 * PRICE
    assert boa.env.get_balance(market.address) == 0


def test_receipt_is_confirmed_once(market, transferred, buyer):
    market.confirmReceived(transferred, sender=buyer)
    with boa.reverts("the item has not been transferred"):
        market.confirmReceived(transferred, sender=buyer)


def test_an_artist_selling_the_own_token_gets_proceeds_and_royalty(market, token, artist, buyer, platform):
    mint(token, artist, artist)
    token.approve(market.address, 1, sender=artist)
    escrow = market.createEscrow(1, PRICE, value=PRICE, sender=artist)
    market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    market.transferItem(escrow, sender=artist)
    market.confirmReceived(escrow, sender=buyer)
    fee, royalty, proceeds = split(PRICE)
    assert market.pendingWithdrawal(artist) == proceeds + royalty + PRICE
    assert market.pendingWithdrawal(platform) == fee


# §2.2 resell: the artist was kept by the contract; here it is kept by the token, and the resale's
# royalty (read through royaltyInfo) goes to the artist, not to the reselling owner.
def test_resale_pays_the_royalty_to_the_original_artist(market, token, transferred, item, seller, buyer, stranger, artist):
    market.confirmReceived(transferred, sender=buyer)
    artist_credit = market.pendingWithdrawal(artist)
    token.approve(market.address, item, sender=buyer)
    resale_price = 777_777
    resale = market.createEscrow(item, resale_price, value=resale_price, sender=buyer)
    market.confirmPurchase(resale, value=2 * resale_price, sender=stranger)
    market.transferItem(resale, sender=buyer)
    market.confirmReceived(resale, sender=stranger)
    fee, royalty, proceeds = split(resale_price)
    assert token.royaltyInfo(item, resale_price) == (artist, royalty)
    assert market.pendingWithdrawal(artist) == artist_credit + royalty
    assert market.pendingWithdrawal(buyer) == PRICE + proceeds + resale_price
    assert token.ownerOf(item) == stranger


def test_seller_aborts_before_purchase_and_gets_the_deposit(market, escrow, item, seller):
    market.abort(escrow, sender=seller)
    (event,) = events(market, "EscrowAborted")
    assert event.listingId == escrow
    assert market.listing(escrow).state == CANCELLED
    assert market.activeListing(item) == 0
    assert withdraw(market, seller) == PRICE


def test_abort_refusals(market, escrow, seller, buyer, stranger):
    with boa.reverts("only the seller aborts"):
        market.abort(escrow, sender=stranger)
    market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    with boa.reverts("already purchased or closed"):
        market.abort(escrow, sender=seller)


def test_an_aborted_escrow_cannot_be_bought_or_aborted_again(market, escrow, seller, buyer):
    market.abort(escrow, sender=seller)
    with boa.reverts("not open for purchase"):
        market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    with boa.reverts("already purchased or closed"):
        market.abort(escrow, sender=seller)
    assert market.pendingWithdrawal(seller) == PRICE


def test_buyer_takes_everything_back_when_the_seller_misses_the_deadline(market, purchased, item, seller, buyer, stranger):
    with boa.reverts("the delivery deadline has not passed"):
        market.refundEscrow(purchased, sender=buyer)
    boa.env.time_travel(seconds=DELIVERY_PERIOD)
    with boa.reverts("only the buyer takes a refund"):
        market.refundEscrow(purchased, sender=stranger)
    market.refundEscrow(purchased, sender=buyer)
    (event,) = events(market, "EscrowRefunded")
    assert (event.listingId, event.buyer, event.amount) == (purchased, buyer, 3 * PRICE)
    assert market.listing(purchased).state == REFUNDED
    assert market.activeListing(item) == 0
    with boa.reverts("not paid for"):
        market.transferItem(purchased, sender=seller)
    assert withdraw(market, buyer) == 3 * PRICE
    assert market.pendingWithdrawal(seller) == 0


def test_no_refund_once_the_token_is_transferred(market, transferred, buyer):
    boa.env.time_travel(seconds=DELIVERY_PERIOD)
    with boa.reverts("not awaiting delivery"):
        market.refundEscrow(transferred, sender=buyer)


def test_seller_may_still_deliver_after_the_deadline_until_the_buyer_takes_the_refund(market, token, purchased, item, seller, buyer):
    boa.env.time_travel(seconds=DELIVERY_PERIOD + 1)
    market.transferItem(purchased, sender=seller)
    assert token.ownerOf(item) == buyer


def test_a_seller_revoking_the_approval_cannot_deliver_and_the_buyer_is_refunded(market, token, purchased, item, seller, buyer, stranger):
    token.approve(stranger, item, sender=seller)
    with boa.reverts("not allowed to transfer"):
        market.transferItem(purchased, sender=seller)
    boa.env.time_travel(seconds=DELIVERY_PERIOD)
    market.refundEscrow(purchased, sender=buyer)
    assert market.pendingWithdrawal(buyer) == 3 * PRICE


def test_a_former_owners_stale_escrow_does_not_block_the_new_owner(market, token, escrow, item, seller, buyer, stranger):
    token.transferFrom(seller, buyer, item, sender=seller)
    token.approve(market.address, item, sender=buyer)
    sale = market.listForSale(item, PRICE, sender=buyer)
    assert market.activeListing(item) == sale
    # The former owner's escrow can only be aborted; that leaves the new listing in place.
    market.abort(escrow, sender=seller)
    assert market.activeListing(item) == sale
    market.buy(sale, value=PRICE, sender=stranger)
    assert token.ownerOf(item) == stranger


# §2.2 paid the artist and the admin with transfer() inside confirmReceived: a recipient that
# reverts blocked the settlement for everyone. Here payouts are credits; the refusing artist only
# blocks its own withdrawal, and its credit stays.
def test_an_artist_refusing_ether_blocks_nobody(market, token, make_actor, seller, buyer, platform):
    actor = make_actor()
    actor.setRefuseEther(True)
    actor.execute(token.address, token.mint.prepare_calldata(seller, "u"), 0)
    token.approve(market.address, 1, sender=seller)
    escrow = market.createEscrow(1, PRICE, value=PRICE, sender=seller)
    market.confirmPurchase(escrow, value=2 * PRICE, sender=buyer)
    market.transferItem(escrow, sender=seller)
    market.confirmReceived(escrow, sender=buyer)
    fee, royalty, proceeds = split(PRICE)
    assert withdraw(market, seller) == proceeds + PRICE
    assert withdraw(market, buyer) == PRICE
    assert withdraw(market, platform) == fee
    with boa.reverts():
        actor.execute(market.address, market.withdraw.prepare_calldata(), 0)
    assert market.pendingWithdrawal(actor.address) == royalty
    actor.setRefuseEther(False)
    actor.execute(market.address, market.withdraw.prepare_calldata(), 0)
    assert actor.received() == royalty and market.pendingWithdrawal(actor.address) == 0


def test_a_buyer_reentering_withdraw_gets_its_credit_once(market, make_actor, escrow, seller):
    actor = make_actor()
    call = actor.execute
    call(market.address, market.confirmPurchase.prepare_calldata(escrow), 2 * PRICE)
    market.transferItem(escrow, sender=seller)
    call(market.address, market.confirmReceived.prepare_calldata(escrow), 0)
    actor.setHook(market.address, market.withdraw.prepare_calldata())
    balance = boa.env.get_balance(market.address)
    call(market.address, market.withdraw.prepare_calldata(), 0)
    assert actor.hookCalls() == 1 and actor.hookSuccesses() == 0
    assert actor.received() == PRICE
    assert boa.env.get_balance(market.address) == balance - PRICE


def test_a_seller_reentering_from_the_refund_cannot_reach_the_escrow(market, token, make_actor, artist, buyer):
    # The seller is a contract whose receipt of its deposit tries to abort a second time.
    actor = make_actor()
    mint(token, artist, actor.address)
    actor.execute(token.address, token.approve.prepare_calldata(market.address, 1), 0)
    actor.execute(market.address, market.createEscrow.prepare_calldata(1, PRICE), PRICE)
    actor.execute(market.address, market.abort.prepare_calldata(1), 0)
    actor.setHook(market.address, market.abort.prepare_calldata(1))
    actor.execute(market.address, market.withdraw.prepare_calldata(), 0)
    assert actor.hookCalls() == 1 and actor.hookSuccesses() == 0
    assert actor.received() == PRICE and boa.env.get_balance(market.address) == 0
