"""Marketplace.vy, direct sale, and what the formats share: ids, the fee settings, the royalty cap,
withdrawals."""
import boa
import pytest
from conftest import CANCELLED, COMPLETED, ESCROW, AUCTION, OPEN, SALE, FEE_BPS, events, mint, split, withdraw

PRICE = 999_999


@pytest.fixture
def item(token, market, artist, seller):
    mint(token, artist, seller)
    token.approve(market.address, 1, sender=seller)
    return 1


@pytest.fixture
def sale(market, item, seller):
    return market.listForSale(item, PRICE, sender=seller)


def test_listing_takes_the_token_into_custody(market, token, item, seller):
    listing_id = market.listForSale(item, PRICE, sender=seller)
    (event,) = events(market, "Listed")
    assert (event.listingId, event.seller, event.tokenId, event.price) == (listing_id, seller, item, PRICE)
    assert token.ownerOf(item) == market.address
    entry = market.listing(listing_id)
    assert (entry.kind, entry.state, entry.seller, entry.tokenId, entry.price) == (SALE, OPEN, seller, item, PRICE)


def test_list_refusals(market, token, artist, item, seller, stranger):
    with boa.reverts("price is zero"):
        market.listForSale(item, 0, sender=seller)
    with boa.reverts("the seller does not own the token"):
        market.listForSale(item, PRICE, sender=stranger)
    mint(token, artist, seller)
    with boa.reverts("the marketplace is not approved for the token"):
        market.listForSale(2, PRICE, sender=seller)


def test_buy_moves_token_and_payment_in_one_transaction(market, token, sale, item, seller, buyer, artist, platform):
    market.buy(sale, value=PRICE, sender=buyer)
    (sold,) = events(market, "Sold")
    (settled,) = events(market, "Settled")
    assert (sold.listingId, sold.buyer, sold.price) == (sale, buyer, PRICE)
    fee, royalty, proceeds = split(PRICE)
    assert (fee, royalty, proceeds) == (24_999, 74_999, 900_001)
    assert (settled.royalty, settled.fee, settled.sellerProceeds) == (royalty, fee, proceeds)
    assert token.ownerOf(item) == buyer
    entry = market.listing(sale)
    assert (entry.state, entry.buyer) == (COMPLETED, buyer)
    assert market.activeListing(item) == 0
    assert withdraw(market, seller) == proceeds
    assert withdraw(market, artist) == royalty
    assert withdraw(market, platform) == fee
    assert boa.env.get_balance(market.address) == 0


@pytest.mark.parametrize("payment", [0, PRICE - 1, PRICE + 1])
def test_buy_must_pay_the_price(market, sale, buyer, payment):
    with boa.reverts("payment must equal the price"):
        market.buy(sale, value=payment, sender=buyer)


# §2.4: pay() had no check of the buyer, so a seller could buy the own item.
def test_seller_cannot_buy_the_own_listing(market, sale, seller):
    with boa.reverts("the seller cannot buy"):
        market.buy(sale, value=PRICE, sender=seller)


def test_a_sold_listing_cannot_be_bought_or_cancelled(market, sale, seller, buyer, stranger):
    market.buy(sale, value=PRICE, sender=buyer)
    before = boa.env.get_balance(stranger)
    with boa.reverts("not for sale"):
        market.buy(sale, value=PRICE, sender=stranger)
    assert boa.env.get_balance(stranger) == before
    with boa.reverts("not for sale"):
        market.cancelListing(sale, sender=seller)


def test_seller_cancels_and_gets_the_token_back(market, token, sale, item, seller, stranger):
    with boa.reverts("only the seller cancels"):
        market.cancelListing(sale, sender=stranger)
    market.cancelListing(sale, sender=seller)
    (event,) = events(market, "ListingCancelled")
    assert event.listingId == sale
    assert token.ownerOf(item) == seller
    assert market.listing(sale).state == CANCELLED


# §2.4: abort() returned the token but left the price set, and "for sale" was price != 0. Here the
# listing's state says it: after cancelling, buy and a second cancel are refused.
def test_a_cancelled_listing_is_no_longer_for_sale(market, sale, seller, buyer):
    market.cancelListing(sale, sender=seller)
    with boa.reverts("not for sale"):
        market.buy(sale, value=PRICE, sender=buyer)
    with boa.reverts("not for sale"):
        market.cancelListing(sale, sender=seller)
    assert market.listing(sale).price == PRICE  # kept as a record; the state decides


# §2.4: withdrawFee never zeroed the fee, so the admin could take it again and again (draining
# other sales' money). Here the fee is credited once and a withdrawal zeroes the credit.
def test_the_platform_fee_is_paid_once(market, sale, buyer, platform, token, artist, seller):
    mint(token, artist, seller)
    token.approve(market.address, 2, sender=seller)
    market.createEscrow(2, PRICE, value=PRICE, sender=seller)  # other money in the contract
    market.buy(sale, value=PRICE, sender=buyer)
    fee, _, _ = split(PRICE)
    assert withdraw(market, platform) == fee
    with boa.reverts("nothing to withdraw"):
        market.withdraw(sender=platform)
    # What stays: the escrow deposit, and the royalty and proceeds nobody has withdrawn yet.
    assert boa.env.get_balance(market.address) == PRICE + split(PRICE)[1] + split(PRICE)[2]


# §2.4 digital: the artist's share was paid only inside the seller's withdraw(), so a seller who
# never withdrew left the artist unpaid. Here the royalty is credited to the artist at the sale.
def test_the_artist_is_paid_without_the_seller_acting(market, sale, buyer, artist):
    market.buy(sale, value=PRICE, sender=buyer)
    assert withdraw(market, artist) == split(PRICE)[1]


def test_resale_pays_the_original_artist(market, token, sale, item, buyer, stranger, artist):
    market.buy(sale, value=PRICE, sender=buyer)
    token.approve(market.address, item, sender=buyer)
    resale = market.listForSale(item, 3 * PRICE, sender=buyer)
    market.buy(resale, value=3 * PRICE, sender=stranger)
    fee, royalty, proceeds = split(3 * PRICE)
    assert market.pendingWithdrawal(artist) == split(PRICE)[1] + royalty
    assert market.pendingWithdrawal(buyer) == proceeds


def test_listing_ids_count_across_the_formats(market, token, artist, seller):
    for _ in range(3):
        mint(token, artist, seller)
    token.setApprovalForAll(market.address, True, sender=seller)
    assert market.createEscrow(1, 5, value=5, sender=seller) == 1
    assert market.createAuction(2, 5, boa.env.timestamp + 60, sender=seller) == 2
    assert market.listForSale(3, 5, sender=seller) == 3
    assert [market.listing(i).kind for i in (1, 2, 3)] == [ESCROW, AUCTION, SALE]
    assert market.listingCount() == 3
    assert market.listing(4).state == 0  # no such listing


def test_wrong_kind_is_refused(market, token, artist, seller, buyer):
    mint(token, artist, seller)
    token.approve(market.address, 1, sender=seller)
    escrow = market.createEscrow(1, 5, value=5, sender=seller)
    with boa.reverts("no such listing of this kind"):
        market.buy(escrow, value=5, sender=buyer)
    with boa.reverts("no such listing of this kind"):
        market.cancelListing(escrow, sender=seller)
    with boa.reverts("no such listing of this kind"):
        market.cancelAuction(escrow, sender=seller)


def test_withdraw_with_nothing_is_refused(market, stranger):
    with boa.reverts("nothing to withdraw"):
        market.withdraw(sender=stranger)


def test_withdrawn_event(market, sale, buyer, platform):
    market.buy(sale, value=PRICE, sender=buyer)
    market.withdraw(sender=platform)
    (event,) = events(market, "Withdrawn")
    assert (event.account, event.amount) == (platform, split(PRICE)[0])


def test_constructor_settings_and_refusals(marketplace_deployer, market, token, platform):
    assert (market.token(), market.platform(), market.platformFeeBps()) == (token.address, platform, FEE_BPS)
    with boa.reverts("fee above 100 %"):
        marketplace_deployer.deploy(token.address, platform, 10_001)
    with boa.reverts("empty address"):
        marketplace_deployer.deploy(token.address, "0x" + "00" * 20, 100)


def test_royalty_is_capped_so_the_shares_never_exceed_the_price(item_token_deployer, marketplace_deployer, artist, seller, buyer, platform):
    # A token asking 100 % royalty and a 2.5 % fee: the royalty is what the fee leaves.
    greedy = item_token_deployer.deploy("G", "G", 10_000)
    market = marketplace_deployer.deploy(greedy.address, platform, FEE_BPS)
    greedy.mint(seller, "u", sender=artist)
    greedy.approve(market.address, 1, sender=seller)
    market.listForSale(1, 1001, sender=seller)
    market.buy(1, value=1001, sender=buyer)
    assert market.pendingWithdrawal(platform) == 25
    assert market.pendingWithdrawal(artist) == 976
    assert market.pendingWithdrawal(seller) == 0


def test_zero_fee_and_zero_royalty(item_token_deployer, marketplace_deployer, artist, seller, buyer, platform):
    plain = item_token_deployer.deploy("P", "P", 0)
    market = marketplace_deployer.deploy(plain.address, platform, 0)
    plain.mint(seller, "u", sender=artist)
    plain.approve(market.address, 1, sender=seller)
    market.listForSale(1, 7, sender=seller)
    market.buy(1, value=7, sender=buyer)
    assert market.pendingWithdrawal(seller) == 7
    assert market.pendingWithdrawal(artist) == 0 and market.pendingWithdrawal(platform) == 0


def test_a_buyer_reentering_buy_from_the_token_receipt_is_not_possible(market, token, sale, item, make_actor):
    # buy moves the token with transferFrom: the buyer's receiver hook is never called, so it has
    # no moment to reenter.
    actor = make_actor()
    actor.setHook(market.address, market.cancelListing.prepare_calldata(sale))
    actor.execute(market.address, market.buy.prepare_calldata(sale), PRICE)
    assert token.ownerOf(item) == actor.address and actor.hookCalls() == 0
