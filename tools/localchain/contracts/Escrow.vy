# pragma version 0.4.3
# An escrow of the chain's own currency, deployed on a local chain by
# scripts/localchain-web3-test.sh (web3.py): a buyer deposits value for a seller, and the arbiter
# releases it to the seller or refunds the buyer. Value enters a contract (a payable call) and
# leaves it (a CALL with value), which the hub mirrors in the ledger in the block's transaction.

event Deposited:
    deal: indexed(uint256)
    buyer: indexed(address)
    seller: indexed(address)
    amount: uint256

event Settled:
    deal: indexed(uint256)
    payee: indexed(address)
    amount: uint256
    released: bool

struct Deal:
    buyer: address
    seller: address
    amount: uint256
    open: bool

arbiter: public(immutable(address))
deals: public(HashMap[uint256, Deal])
dealCount: public(uint256)


@deploy
def __init__(arbiter_: address):
    arbiter = arbiter_


@external
@payable
def deposit(seller: address) -> uint256:
    assert msg.value > 0, "escrow: nothing deposited"
    assert seller != empty(address), "escrow: no seller"
    deal: uint256 = self.dealCount
    self.deals[deal] = Deal(buyer=msg.sender, seller=seller, amount=msg.value, open=True)
    self.dealCount = deal + 1
    log Deposited(deal=deal, buyer=msg.sender, seller=seller, amount=msg.value)
    return deal


@external
def release(deal: uint256):
    self._settle(deal, True)


@external
def refund(deal: uint256):
    self._settle(deal, False)


@internal
def _settle(deal: uint256, released: bool):
    assert msg.sender == arbiter, "escrow: only the arbiter settles"
    assert self.deals[deal].open, "escrow: the deal is not open"
    self.deals[deal].open = False
    payee: address = self.deals[deal].seller if released else self.deals[deal].buyer
    amount: uint256 = self.deals[deal].amount
    send(payee, amount)
    log Settled(deal=deal, payee=payee, amount=amount, released=released)
