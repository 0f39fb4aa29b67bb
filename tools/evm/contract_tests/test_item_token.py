"""ItemToken.vy: the ERC-721 surface, minting with the artist recorded, and EIP-2981 royalties."""
import boa
import pytest
from conftest import ROYALTY_BPS, events, mint

ZERO = "0x0000000000000000000000000000000000000000"


def test_mint_assigns_ids_from_one_and_records_the_caller_as_artist(token, artist, buyer):
    assert token.totalSupply() == 0
    assert mint(token, artist, artist, "ipfs://a") == 1
    assert mint(token, artist, buyer, "ipfs://b") == 2
    assert token.totalSupply() == 2
    assert token.ownerOf(1) == artist and token.ownerOf(2) == buyer
    assert token.artistOf(1) == artist and token.artistOf(2) == artist
    assert token.balanceOf(artist) == 1 and token.balanceOf(buyer) == 1
    assert token.tokenURI(2) == "ipfs://b"


def test_mint_logs_transfer_from_zero_and_minted(token, artist, buyer):
    mint(token, artist, buyer, "ipfs://x")
    (transfer,) = events(token, "Transfer")
    assert (transfer.sender, transfer.receiver, transfer.tokenId) == (ZERO, buyer, 1)
    (minted,) = events(token, "Minted")
    assert (minted.tokenId, minted.artist, minted.uri) == (1, artist, "ipfs://x")


def test_mint_to_the_zero_address_is_refused(token, artist):
    with boa.reverts("mint to the zero address"):
        token.mint(ZERO, "u", sender=artist)


# §2.1: mint(address,uint256), updateArtist and the counters were public with no access control, so
# anyone could mint a chosen id or rewrite a token's artist. Here the ids are assigned by the
# contract and the artist is fixed at mint: no function sets either.
def test_artist_is_fixed_at_mint_and_no_function_sets_artist_or_id(token, artist, stranger):
    mint(token, artist, artist)
    names = {item.get("name") for item in token.abi}
    assert not names & {"updateArtist", "incrementToken", "incrementUid", "_artist"}
    mints = [item for item in token.abi if item.get("name") == "mint"]
    assert [[i["type"] for i in m["inputs"]] for m in mints] == [["address", "string"]]
    # Someone else minting gets the next id and is that token's artist; token 1 is untouched.
    assert mint(token, stranger, stranger) == 2
    assert token.artistOf(1) == artist and token.ownerOf(1) == artist
    assert token.artistOf(2) == stranger


@pytest.mark.parametrize("price", [0, 1, 133, 10_000, 1_000_003, 10**18 + 7])
def test_royalty_info_is_the_artist_and_the_rate_rounded_down(token, artist, price):
    mint(token, artist, artist)
    receiver, amount = token.royaltyInfo(1, price)
    assert receiver == artist
    assert amount == price * ROYALTY_BPS // 10_000


def test_royalty_stays_with_the_artist_after_transfers(token, artist, buyer, stranger):
    mint(token, artist, artist)
    token.transferFrom(artist, buyer, 1, sender=artist)
    token.transferFrom(buyer, stranger, 1, sender=buyer)
    assert token.royaltyInfo(1, 10_000) == (artist, 750)


def test_royalty_above_one_hundred_percent_is_refused_at_deployment(item_token_deployer):
    with boa.reverts("royalty above 100 %"):
        item_token_deployer.deploy("N", "S", 10_001)
    assert item_token_deployer.deploy("N", "S", 10_000).royaltyBps() == 10_000


def test_metadata(token):
    assert token.name() == "Hub Items" and token.symbol() == "HUBI" and token.royaltyBps() == ROYALTY_BPS


@pytest.mark.parametrize(
    "interface_id,supported",
    [
        (bytes.fromhex("01ffc9a7"), True),  # ERC-165
        (bytes.fromhex("80ac58cd"), True),  # ERC-721
        (bytes.fromhex("5b5e139f"), True),  # ERC-721 Metadata
        (bytes.fromhex("2a55205a"), True),  # EIP-2981
        (bytes.fromhex("ffffffff"), False),
        (bytes.fromhex("780e9d63"), False),  # ERC-721 Enumerable: not implemented
    ],
)
def test_supports_interface(token, interface_id, supported):
    assert token.supportsInterface(interface_id) == supported


def test_queries_of_an_unknown_token_revert(token):
    for query in (token.ownerOf, token.getApproved, token.tokenURI, token.artistOf):
        with boa.reverts("no such token"):
            query(1)
    with boa.reverts("no such token"):
        token.royaltyInfo(1, 100)
    with boa.reverts("the zero address owns nothing"):
        token.balanceOf(ZERO)


def test_owner_transfers_and_the_approval_is_cleared(token, artist, buyer, stranger):
    mint(token, artist, artist)
    token.approve(stranger, 1, sender=artist)
    token.transferFrom(artist, buyer, 1, sender=artist)
    (transfer,) = events(token, "Transfer")
    assert (transfer.sender, transfer.receiver, transfer.tokenId) == (artist, buyer, 1)
    assert token.ownerOf(1) == buyer
    assert token.getApproved(1) == ZERO
    assert token.balanceOf(artist) == 0 and token.balanceOf(buyer) == 1
    with boa.reverts("not allowed to transfer"):
        token.transferFrom(buyer, stranger, 1, sender=stranger)


def test_approved_address_and_operator_may_transfer(token, artist, buyer, stranger):
    mint(token, artist, artist)
    mint(token, artist, artist)
    token.approve(stranger, 1, sender=artist)
    (approval,) = events(token, "Approval")
    assert (approval.owner, approval.approved, approval.tokenId) == (artist, stranger, 1)
    assert token.getApproved(1) == stranger
    token.transferFrom(artist, buyer, 1, sender=stranger)
    assert token.ownerOf(1) == buyer
    token.setApprovalForAll(stranger, True, sender=artist)
    (event,) = events(token, "ApprovalForAll")
    assert (event.owner, event.operator, event.approved) == (artist, stranger, True)
    assert token.isApprovedForAll(artist, stranger)
    token.transferFrom(artist, buyer, 2, sender=stranger)
    assert token.ownerOf(2) == buyer
    token.setApprovalForAll(stranger, False, sender=artist)
    assert not token.isApprovedForAll(artist, stranger)


def test_operator_may_approve(token, artist, buyer, stranger):
    mint(token, artist, artist)
    token.setApprovalForAll(stranger, True, sender=artist)
    token.approve(buyer, 1, sender=stranger)
    assert token.getApproved(1) == buyer


def test_transfer_refusals(token, artist, buyer, stranger):
    mint(token, artist, artist)
    with boa.reverts("not the token's owner"):
        token.transferFrom(buyer, stranger, 1, sender=buyer)
    with boa.reverts("not allowed to transfer"):
        token.transferFrom(artist, stranger, 1, sender=stranger)
    with boa.reverts("transfer to the zero address"):
        token.transferFrom(artist, ZERO, 1, sender=artist)
    with boa.reverts("no such token"):
        token.transferFrom(artist, buyer, 2, sender=artist)
    with boa.reverts("not the owner or an operator"):
        token.approve(stranger, 1, sender=stranger)
    with boa.reverts("approving the owner"):
        token.approve(artist, 1, sender=artist)
    with boa.reverts("approving oneself"):
        token.setApprovalForAll(artist, True, sender=artist)


def test_safe_transfer_to_an_account_without_code_both_overloads(token, artist, buyer):
    mint(token, artist, artist)
    token.safeTransferFrom(artist, buyer, 1, sender=artist)
    assert token.ownerOf(1) == buyer
    token.safeTransferFrom(buyer, artist, 1, b"data", sender=buyer)
    assert token.ownerOf(1) == artist


def test_safe_transfer_calls_the_receiving_contract(token, artist, make_actor):
    actor = make_actor()
    mint(token, artist, artist)
    # The receiver's hook looks the owner up: the transfer is complete when the hook runs.
    actor.setHook(token.address, token.ownerOf.prepare_calldata(1))
    token.safeTransferFrom(artist, actor.address, 1, b"hello", sender=artist)
    assert token.ownerOf(1) == actor.address
    assert actor.hookCalls() == 1 and actor.hookSuccesses() == 1


def test_safe_transfer_to_a_contract_without_the_receiver_hook_reverts(token, market, artist):
    mint(token, artist, artist)
    with boa.reverts():
        token.safeTransferFrom(artist, market.address, 1, sender=artist)
    with boa.reverts():
        token.safeTransferFrom(artist, market.address, 1, b"x", sender=artist)
    assert token.ownerOf(1) == artist


def test_a_receiver_moving_the_token_on_in_its_hook_leaves_consistent_state(token, artist, stranger, make_actor):
    actor = make_actor()
    mint(token, artist, artist)
    actor.setHook(token.address, token.transferFrom.prepare_calldata(actor.address, stranger, 1))
    token.safeTransferFrom(artist, actor.address, 1, sender=artist)
    assert actor.hookSuccesses() == 1
    assert token.ownerOf(1) == stranger
    assert token.balanceOf(stranger) == 1 and token.balanceOf(actor.address) == 0 and token.balanceOf(artist) == 0
