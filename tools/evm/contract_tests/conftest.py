"""Fixtures of the contract tests of contracts/evm/ (titanoboa, py-evm): every test starts from a
fresh chain with a token, a marketplace and funded accounts; titanoboa's pytest plugin rolls the
chain back after each test."""
import pathlib

import boa
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CONTRACTS = ROOT / "contracts" / "evm"
HELPERS = pathlib.Path(__file__).resolve().parent / "contracts"

ROYALTY_BPS = 750  # 7.5 %
FEE_BPS = 250  # 2.5 %
ETHER = 10**18
START_BALANCE = 1000 * ETHER

# Listing kinds and states (Marketplace.vy).
ESCROW, AUCTION, SALE = 1, 2, 3
NONE, OPEN, LOCKED, TRANSFERRED, COMPLETED, CANCELLED, REFUNDED = range(7)


@pytest.fixture(scope="session")
def item_token_deployer():
    return boa.load_partial(str(CONTRACTS / "ItemToken.vy"))


@pytest.fixture(scope="session")
def marketplace_deployer():
    return boa.load_partial(str(CONTRACTS / "Marketplace.vy"))


@pytest.fixture(scope="session")
def lectures_deployer():
    return boa.load_partial(str(CONTRACTS / "Lectures.vy"))


@pytest.fixture(scope="session")
def actor_deployer():
    return boa.load_partial(str(HELPERS / "Actor.vy"))


def account(name):
    address = boa.env.generate_address(name)
    boa.env.set_balance(address, START_BALANCE)
    return address


@pytest.fixture
def deployer():
    return account("deployer")


@pytest.fixture
def platform():
    return account("platform")


@pytest.fixture
def artist():
    return account("artist")


@pytest.fixture
def seller():
    return account("seller")


@pytest.fixture
def buyer():
    return account("buyer")


@pytest.fixture
def stranger():
    return account("stranger")


@pytest.fixture
def token(item_token_deployer, deployer):
    with boa.env.prank(deployer):
        return item_token_deployer.deploy("Hub Items", "HUBI", ROYALTY_BPS)


@pytest.fixture
def market(marketplace_deployer, token, platform, deployer):
    with boa.env.prank(deployer):
        return marketplace_deployer.deploy(token.address, platform, FEE_BPS)


@pytest.fixture
def make_actor(actor_deployer):
    def make():
        actor = actor_deployer.deploy()
        boa.env.set_balance(actor.address, START_BALANCE)
        return actor

    return make


def mint(token, artist, to, uri="ipfs://item"):
    return token.mint(to, uri, sender=artist)


def split(price, royalty_bps=ROYALTY_BPS, fee_bps=FEE_BPS):
    """The marketplace's split of a sale at `price`: (fee, royalty, seller proceeds)."""
    fee = price * fee_bps // 10000
    royalty = min(price * royalty_bps // 10000, price - fee)
    return fee, royalty, price - fee - royalty


def events(contract, name):
    """The events called `name` that the last transaction to `contract` logged, decoded."""
    return [e for e in contract.get_logs() if type(e).__name__ == name]


def withdraw(market, account):
    """Withdraws `account`'s credit and checks that exactly that much ether arrived; returns it."""
    credit = market.pendingWithdrawal(account)
    before = boa.env.get_balance(account)
    market.withdraw(sender=account)
    assert boa.env.get_balance(account) - before == credit
    assert market.pendingWithdrawal(account) == 0
    return credit
